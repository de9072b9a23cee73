/** One FSANZ row → a food and the categories it needs; shared by the AUSNUT and AFCD readers. */
import type { CatalogRecord, SourceRef } from '../../domain/records.js';
import { GENERIC_BRAND_IDS, type Region } from '../../domain/regions.js';
import { deriveId, ID_NAMESPACES } from '../../domain/ids.js';
import { BadCell, MissingColumn, cellText, mapColumns, readQuantities, type Cell, type ColumnMap, type Layout } from './columns.js';
import { categoryPath, type CategoryNode, type CategoryTree } from './categories.js';
import { classificationOf, nutrientsOf, type Amounts, type Basis } from './mapping.js';

export interface FsanzRow {
  readonly key: string;
  readonly code: string;
  readonly name: string;
  /** AUSNUT's survey flag, '' when none. */
  readonly flag: string;
  readonly path: readonly CategoryNode[];
  readonly amounts: Amounts;
}

/** The header row → its column map, or an error naming the file (or sheet) and the missing column. */
export function headerColumns(cells: readonly Cell[], layout: Layout, where: string, what: string): ColumnMap {
  try {
    return mapColumns(cells, layout);
  } catch (error) {
    if (error instanceof MissingColumn) throw new Error(`${where}: ${error.message}; is this ${what}?`);
    throw error;
  }
}

/** A data row → its food's fields, or the reason it is invalid. */
export function readRow(cells: readonly Cell[], columns: ColumnMap, layout: Layout): FsanzRow | { readonly reason: string } {
  const key = cellText(cells[columns.key]);
  if (key === '') return { reason: `no ${layout.key}` };
  const name = cellText(cells[columns.name]).replace(/\s+/g, ' ');
  if (name === '') return { reason: `${layout.key} ${key}: no ${layout.name}` };
  const code = cellText(cells[columns.code]);
  const path = categoryPath(code);
  if (!path) return { reason: `${layout.key} ${key}: ${layout.code} '${code.slice(0, 20)}' is not a classification code (2–8 digits)` };
  try {
    const amounts = readQuantities(cells, columns);
    const flag = columns.flag === undefined ? '' : cellText(cells[columns.flag]);
    return { key, code, name, flag, path, amounts };
  } catch (error) {
    if (error instanceof BadCell) return { reason: `${layout.key} ${key}: ${error.message}` };
    throw error;
  }
}

/** Which release a food comes from: its id namespace part and the note that names its source key. */
export interface Origin {
  /** `ausnut` or `afcd`: part of the id, so the two sources never share a food id. */
  readonly source: string;
  readonly note: (row: FsanzRow) => string;
}

export function foodId(origin: Origin, region: Region, key: string): string {
  return deriveId(ID_NAMESPACES.fsanz, `${origin.source}:${region}:${key}`);
}

/** The row's categories (those not emitted yet) and its food, in the generic brand of the region. */
export function* foodRecords(
  row: FsanzRow, basis: Basis, origin: Origin, tree: CategoryTree, region: Region, source: SourceRef,
): Generator<CatalogRecord> {
  const category = yield* tree.leaf(row.path, source);
  yield {
    kind: 'food',
    value: {
      foodId: foodId(origin, region, row.key),
      region, brand: GENERIC_BRAND_IDS[region], category, tags: [],
      name: row.name,
      note: origin.note(row),
      classification: classificationOf(row.name),
      ...(basis.mass !== undefined ? { mass: basis.mass } : {}),
      ...(basis.volume !== undefined ? { volume: basis.volume } : {}),
      servings: basis.servings,
      upcs: {},
      nutrients: nutrientsOf(basis.amounts),
    },
    source,
  };
}
