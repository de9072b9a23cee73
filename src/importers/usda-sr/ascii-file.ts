import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readLines } from '../line-reader.js';

/** One row of an SR ASCII file: its fields with `~` quotes removed, and its line. */
export interface SrRow {
  readonly fields: readonly string[];
  readonly line: number;
}

/**
 * The SR ASCII layout: fields separated by `^`, text fields wrapped in `~`, CRLF line ends,
 * empty numeric field = not measured. Files are ASCII with a few Latin-1 bytes (µ in NUTR_DEF),
 * so they are decoded as Latin-1.
 */
export function parseSrLine(text: string): string[] {
  return text.split('^').map((field) => (field.length >= 2 && field.startsWith('~') && field.endsWith('~') ? field.slice(1, -1) : field));
}

export async function* readSrFile(path: string): AsyncGenerator<SrRow> {
  for await (const line of readLines(path, { encoding: 'latin1' })) {
    if (line.text.trim() === '') continue;
    yield { fields: parseSrLine(line.text), line: line.number };
  }
}

export async function readAllRows(path: string): Promise<SrRow[]> {
  const rows: SrRow[] = [];
  for await (const row of readSrFile(path)) rows.push(row);
  return rows;
}

/** Table name (FOOD_DES, …) → path, matching `NAME.txt`, `name.txt`, `NAME.txt.gz`, any case. */
export function findTables(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir)) {
    const match = /^([a-z_]+)\.txt(\.gz)?$/i.exec(entry);
    if (match) found.set(match[1]!.toUpperCase(), join(dir, entry));
  }
  return found;
}
