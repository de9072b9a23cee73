import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';

/** One CSV record: its fields and the physical line it starts on (quoted fields may span lines). */
export interface CsvRow {
  readonly fields: readonly string[];
  readonly line: number;
}

/** The file is not CSV past some point (an unclosed quote, a stray quote): fatal, with its line. */
export class CsvSyntaxError extends Error {}

/** Longest field accepted, so a stray quote cannot make the parser buffer gigabytes. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/**
 * Streams the records of a CSV file (plain or .gz) with bounded memory. Accepts both the
 * publisher's quote-everything style and the quote-when-needed style of spreadsheet and pandas
 * exports, a UTF-8 BOM, CRLF or LF. Empty lines are passed over. A row's field count is not
 * checked here: the caller knows what a row should hold and reports it as its own problem.
 * `onBytes` receives the number of (compressed) bytes read so far, `onProgress` the fraction.
 */
export async function* readCsv(
  path: string,
  options: { delimiter?: string; onBytes?: (bytes: number) => void; onProgress?: (fraction: number) => void } = {},
): AsyncGenerator<CsvRow> {
  const size = options.onProgress ? await fileSize(path) : 0;
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const input: Readable = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (error) => input.destroy(error));
  const parser = input.pipe(parse({
    bom: true, relax_column_count: true, delimiter: options.delimiter ?? ',', max_record_size: MAX_RECORD_BYTES,
  }));
  input.on('error', (error) => parser.destroy(error));
  // Lines are counted here, not taken from csv-parse's info, which counts a CRLF inside quotes twice.
  let next = 1;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const line = next;
      next = line + 1;
      for (const field of record) for (let i = field.indexOf('\n'); i !== -1; i = field.indexOf('\n', i + 1)) next++;
      options.onBytes?.(raw.bytesRead);
      if (options.onProgress && size > 0) options.onProgress(Math.min(1, raw.bytesRead / size));
      if (record.length === 1 && record[0] === '') continue;
      yield { fields: record, line };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines ?? next;
      throw new CsvSyntaxError(`${basename(path)}:${line}: not valid CSV: ${error.message}`);
    }
    throw error;
  } finally {
    raw.destroy();
  }
}

/** Column name → index, for a header row; names compared trimmed and case-insensitively. */
export function columnsOf(header: readonly string[]): Map<string, number> {
  return new Map(header.map((name, i) => [name.trim().toLowerCase(), i]));
}

export async function fileSize(path: string): Promise<number> {
  return (await stat(path)).size;
}
