import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { CsvError, parse, type Info } from 'csv-parse';

export interface CsvRecord {
  /** 1-based line the record starts on (a quoted field may span several lines). */
  readonly line: number;
  readonly fields: readonly string[];
}

/** A quoting error: the parser cannot find where the next record starts, so it ends the file. */
export class CsvSyntaxError extends Error {}

/**
 * Streams the records of a CSV file (plain or .gz; RFC 4180 / Excel quoting; a BOM is dropped)
 * with bounded memory. Records keep their own field count, so a caller can report a row with
 * too few or too many fields by its line instead of the whole file failing.
 */
export async function* readCsvRecords(
  path: string,
  options: { delimiter?: string; onProgress?: (fraction: number) => void } = {},
): AsyncGenerator<CsvRecord> {
  const size = (await stat(path)).size;
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const input: Readable = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const parser = input.pipe(parse({ bom: true, info: true, relax_column_count: true, delimiter: options.delimiter ?? ',' }));
  raw.on('error', (error) => input.destroy(error));
  input.on('error', (error) => parser.destroy(error));
  // csv-parse reports the line a record ends on; the next one starts just after it. (csv-parse 6
  // counts a CR LF inside a quoted field as two lines; Excel and the FSANZ files break lines
  // inside cells with a bare LF, which counts as one.)
  let lastLine = 0;
  let count = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      yield { line: lastLine + 1, fields: record };
      lastLine = info.lines;
      if (options.onProgress && size > 0 && ++count % 1000 === 0) options.onProgress(Math.min(1, raw.bytesRead / size));
    }
    options.onProgress?.(1);
  } catch (error) {
    if (error instanceof CsvError) {
      const line = typeof error['lines'] === 'number' ? error['lines'] : lastLine + 1;
      throw new CsvSyntaxError(`${basename(path)}:${line}: ${error.message}`);
    }
    throw error;
  } finally {
    raw.destroy();
  }
}
