import type { CatalogRecord } from '../domain/records.js';
import { checkBrand, checkCategory, checkFood, checkTag } from '../domain/validate.js';
import type { ImportRecord } from '../store/catalog-store.js';

/** What the import puts, or a record it reports: a bad one (fails or is skipped) or one out of scope. */
export type ImportItem = ImportRecord | Extract<CatalogRecord, { kind: 'invalid' | 'skipped' }>;

/**
 * Every record goes through the same record rules whichever importer made it (the catalog
 * reader passes records on unchecked), so a mapping bug in an importer cannot put a record
 * into the catalogue that the catalog format refuses. Returns the normalised record, or the
 * record as invalid with the rule it breaks.
 */
export function checkRecord(record: CatalogRecord): ImportItem {
  if (record.kind === 'invalid' || record.kind === 'skipped') return record;
  const checked =
    record.kind === 'brand' ? checkBrand(record.value)
    : record.kind === 'category' ? checkCategory(record.value)
    : record.kind === 'tag' ? checkTag(record.value)
    : checkFood(record.value);
  if (!checked.ok) return { kind: 'invalid', reason: checked.reason, source: record.source };
  return { ...record, value: checked.value } as ImportRecord;
}
