import type { CatalogRecord } from '../domain/records.js';
import { describeSource } from '../domain/records.js';
import { RecordRejected, type CatalogWriter, type PutOutcome } from '../store/catalog-store.js';
import { checkRecord, type ImportItem } from './check-record.js';
import type { ReaderOptions } from './formats.js';
import { readInWorker } from './worker-reader.js';

export interface ImportOptions {
  readonly replace: boolean;
  readonly skipInvalid: boolean;
  /** Called for each skipped record (with --skip-invalid). */
  readonly onSkip?: (message: string) => void;
  /** Called now and then with the number of records read so far. */
  readonly onRecords?: (count: number) => void;
  /** The records are in; the whole-catalogue checks and derived data (seconds on large catalogues) follow. */
  readonly onFinishing?: () => void;
}

export interface ImportSummary {
  /** Records of every kind (foods, brands, categories, tags). */
  readonly added: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly skipped: number;
  /** The foods among them: what an operator counts. */
  readonly foods: { readonly added: number; readonly changed: number; readonly unchanged: number };
}

/** The import failed and changed nothing; the message names file, line and reason. */
export class ImportFailed extends Error {}

async function* checked(records: AsyncIterable<CatalogRecord>): AsyncGenerator<ImportItem> {
  for await (const record of records) yield checkRecord(record);
}

/**
 * Loads records in one transaction (contract C4): on any failure the catalogue is exactly
 * as before; with skipInvalid, bad records are reported and left out instead.
 */
export function runImport(writer: CatalogWriter, records: AsyncIterable<CatalogRecord>, options: ImportOptions): Promise<ImportSummary> {
  return importItems(writer, checked(records), options);
}

/**
 * The same as `runImport(writer, reader(paths, readerOptions), options)` for the reader of a
 * registered format, with the reading, the record checks and the database-free part of each
 * food's row done on a worker thread (worker-reader.ts): the writer's thread is left with SQLite.
 */
export function runImportFromFiles(
  writer: CatalogWriter,
  format: string,
  paths: readonly string[],
  readerOptions: ReaderOptions,
  options: ImportOptions,
): Promise<ImportSummary> {
  return importItems(writer, readInWorker(format, paths, readerOptions), options);
}

async function importItems(writer: CatalogWriter, items: AsyncIterable<ImportItem>, options: ImportOptions): Promise<ImportSummary> {
  const counts: Record<PutOutcome | 'skipped', number> = { added: 0, changed: 0, unchanged: 0, skipped: 0 };
  const foods: Record<PutOutcome, number> = { added: 0, changed: 0, unchanged: 0 };
  const transaction = await writer.beginImport({ replace: options.replace });
  let seen = 0;
  const reject = (where: string, reason: string): void => {
    const message = `${where}: ${reason}`;
    if (!options.skipInvalid) throw new ImportFailed(message);
    counts.skipped++;
    options.onSkip?.(message);
  };
  try {
    for await (const item of items) {
      if (++seen % 10_000 === 0) options.onRecords?.(seen);
      const where = describeSource(item.source);
      if (item.kind === 'invalid') {
        reject(where, item.reason);
        continue;
      }
      if (item.kind === 'skipped') {
        counts.skipped++;
        options.onSkip?.(`${where}: ${item.reason}`);
        continue;
      }
      try {
        const outcome = await transaction.put(item);
        counts[outcome]++;
        if (item.kind === 'food' || item.kind === 'food-row') foods[outcome]++;
      } catch (error) {
        if (!(error instanceof RecordRejected)) throw error;
        reject(where, error.message);
      }
    }
    options.onRecords?.(seen);
    options.onFinishing?.();
    const problems = await transaction.check();
    if (problems.length > 0) {
      throw new ImportFailed(`the catalogue would break these rules:\n  ${problems.join('\n  ')}`);
    }
    await transaction.commit();
    return { ...counts, foods };
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
}
