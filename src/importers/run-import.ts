import type { CatalogRecord } from '../domain/records.js';
import { describeSource } from '../domain/records.js';
import { checkBrand, checkCategory, checkFood, checkTag } from '../domain/validate.js';
import { RecordRejected, type CatalogWriter, type PutOutcome } from '../store/catalog-store.js';

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
  readonly added: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly skipped: number;
}

/** The import failed and changed nothing; the message names file, line and reason. */
export class ImportFailed extends Error {}

type Valid = Exclude<CatalogRecord, { kind: 'invalid' | 'skipped' }>;

/**
 * Every record goes through the same record rules whichever importer made it (the catalog
 * reader passes records on unchecked), so a mapping bug in an importer cannot put a record
 * into the catalogue that the catalog format refuses. Returns the normalised record.
 */
function recheck(record: Valid): Valid | string {
  const checked =
    record.kind === 'brand' ? checkBrand(record.value)
    : record.kind === 'category' ? checkCategory(record.value)
    : record.kind === 'tag' ? checkTag(record.value)
    : checkFood(record.value);
  if (!checked.ok) return checked.reason;
  return { ...record, value: checked.value } as Valid;
}

/**
 * Loads records in one transaction (contract C4): on any failure the catalogue is exactly
 * as before; with skipInvalid, bad records are reported and left out instead.
 */
export async function runImport(
  writer: CatalogWriter,
  records: AsyncIterable<CatalogRecord>,
  options: ImportOptions,
): Promise<ImportSummary> {
  const counts: Record<PutOutcome | 'skipped', number> = { added: 0, changed: 0, unchanged: 0, skipped: 0 };
  const transaction = await writer.beginImport({ replace: options.replace });
  let seen = 0;
  const reject = (where: string, reason: string): void => {
    const message = `${where}: ${reason}`;
    if (!options.skipInvalid) throw new ImportFailed(message);
    counts.skipped++;
    options.onSkip?.(message);
  };
  try {
    for await (const record of records) {
      if (++seen % 10_000 === 0) options.onRecords?.(seen);
      const where = describeSource(record.source);
      if (record.kind === 'invalid') {
        reject(where, record.reason);
        continue;
      }
      if (record.kind === 'skipped') {
        counts.skipped++;
        options.onSkip?.(`${where}: ${record.reason}`);
        continue;
      }
      const valid = recheck(record);
      if (typeof valid === 'string') {
        reject(where, valid);
        continue;
      }
      try {
        counts[await transaction.put(valid)]++;
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
    return counts;
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
}
