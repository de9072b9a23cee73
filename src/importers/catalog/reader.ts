import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CatalogRecord, SourceRef } from '../../domain/records.js';
import { readLines } from '../line-reader.js';
import type { LineRecords, ReaderOptions, SourceReader } from '../formats.js';

type Kind = 'brand' | 'category' | 'tag' | 'food';


/** A `.json` catalogue is parsed whole: past this size, use `.jsonl`, which streams. */
const MAX_JSON_BYTES = 256 * 1024 * 1024;

/**
 * The record as the file has it: the import runner checks every record's rules (for every
 * source alike), so checking here too would only do the work twice.
 */
function toRecord(kind: Kind, raw: unknown, source: SourceRef): CatalogRecord {
  return { kind, value: raw, source } as CatalogRecord;
}

/** The record of one line of a `.jsonl` catalogue; undefined for a blank line. */
function recordOfLine(text: string, source: SourceRef): CatalogRecord | undefined {
  if (text.trim() === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', reason: `not valid JSON: ${(error as Error).message}`, source };
  }
  const kind = (raw as { kind?: unknown } | null)?.kind;
  if (kind !== 'brand' && kind !== 'category' && kind !== 'tag' && kind !== 'food') {
    return { kind: 'invalid', reason: 'a line must be an object with "kind": "brand", "category", "tag" or "food"', source };
  }
  return toRecord(kind, raw, source);
}

const isJsonl = (path: string): boolean => path.endsWith('.jsonl') || path.endsWith('.jsonl.gz');

async function* readJsonl(path: string, options: ReaderOptions): AsyncGenerator<CatalogRecord> {
  const file = basename(path);
  for await (const line of readLines(path, { onProgress: options.onProgress })) {
    const record = recordOfLine(line.text, { file, line: line.number });
    if (record !== undefined) yield record;
  }
}

async function* readJson(path: string): AsyncGenerator<CatalogRecord> {
  const file = basename(path);
  const size = (await stat(path)).size;
  if (size > MAX_JSON_BYTES) {
    throw new Error(`${file}: a .json catalogue is read whole and this one is ${size} bytes; write it as .jsonl to stream it`);
  }
  let document: unknown;
  try {
    document = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new Error(`${file}: expected an object {"brands":[…],"categories":[…],"tags":[…],"foods":[…]}`);
  }
  const sections: [string, Kind][] = [['brands', 'brand'], ['categories', 'category'], ['tags', 'tag'], ['foods', 'food']];
  for (const [section, kind] of sections) {
    const list = (document as Record<string, unknown>)[section];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new Error(`${file}: "${section}" must be a list`);
    for (let i = 0; i < list.length; i++) yield toRecord(kind, list[i], { file, record: `${section}[${i}]` });
  }
}

/** Our own format (contract C4): `.json` whole, `.jsonl` streamed one record per line. */
export const readCatalog: SourceReader = async function* (paths, options) {
  for (const path of paths) {
    if (isJsonl(path)) yield* readJsonl(path, options);
    else if (path.endsWith('.json')) yield* readJson(path);
    else throw new Error(`${basename(path)}: a catalogue file ends in .json or .jsonl`);
  }
};

/** `.jsonl` catalogues: each line a record of its own, so that several workers may share them. */
export const catalogLines: LineRecords = {
  reads: (paths) => paths.every(isJsonl),
  record: recordOfLine,
};
