import { basename } from 'node:path';
import readExcelFile from 'read-excel-file/node';
import { describeSource, type CatalogRecord, type SourceRef } from '../../domain/records.js';
import type { Region } from '../../domain/regions.js';
import type { SourceReader } from '../formats.js';
import { readCsv } from '../csv-rows.js';
import { AFCD_LAYOUT, cellText, normaliseHeader, type Cell, type ColumnMap } from './columns.js';
import { CategoryTree } from './categories.js';
import { basisOf, massBasis, volumeBasis } from './mapping.js';
import { foodRecords, headerColumns, readRow, type FsanzRow, type Origin } from './rows.js';

const AFCD: Origin = { source: 'afcd', note: (row) => `AFCD Public Food Key ${row.key}, Classification ${row.code}` };

/** What a table's amounts are per: the solids sheet is per 100 g, the liquids sheet per 100 mL. */
type Per = 'g' | 'mL';

interface SheetRow {
  readonly cells: readonly Cell[];
  readonly source: SourceRef;
}

interface Table {
  /** For messages: the file, and the sheet of a workbook. */
  readonly where: string;
  readonly sheet: string | undefined;
  /** CSV rows must have the header's field count; a sheet is a grid, its short rows are empty cells. */
  readonly checkWidth: boolean;
  readonly rows: AsyncIterable<SheetRow> | Iterable<SheetRow>;
}

const isDataSheet = (header: readonly Cell[] | undefined): boolean =>
  (header ?? []).some((cell) => normaliseHeader(cellText(cell)) === normaliseHeader(AFCD_LAYOUT.key));

async function* csvRows(path: string, file: string): AsyncGenerator<SheetRow> {
  for await (const { line, fields } of readCsv(path)) yield { cells: fields, source: { file, line } };
}

/**
 * The tables of one file: a workbook's data sheets (those with a Public Food Key column, so
 * `Index` is passed over), or a CSV rendering of one sheet. The workbook is read whole: the
 * full release is about 2 MB.
 */
async function* tablesOf(path: string): AsyncGenerator<Table> {
  const file = basename(path);
  if (!/\.xlsx$/i.test(path)) {
    yield { where: file, sheet: undefined, checkWidth: true, rows: csvRows(path, file) };
    return;
  }
  const sheets = await readExcelFile(path);
  const data = sheets.filter((s) => isDataSheet(s.data[0]));
  if (data.length === 0) {
    throw new Error(`${file}: no sheet has a '${AFCD_LAYOUT.key}' column (sheets: ${sheets.map((s) => s.sheet).join(', ')})`);
  }
  for (const { sheet, data: grid } of data) {
    const rows = grid.map((cells, i): SheetRow => ({ cells, source: { file, record: `sheet '${sheet}' row ${i + 1}` } }));
    yield { where: `${file} sheet '${sheet}'`, sheet, checkWidth: false, rows };
  }
}

/** The row under the header of the liquids sheet reads `per 100 mL` in every nutrient column. */
function unitsRow(cells: readonly Cell[], columns: ColumnMap): Per | undefined {
  if (cellText(cells[columns.key]) !== '') return undefined;
  for (const cell of cells) {
    const match = /^per 100 ?(g|ml)$/.exec(normaliseHeader(cellText(cell)));
    if (match) return match[1] === 'ml' ? 'mL' : 'g';
  }
  return undefined;
}

type Collected =
  | { readonly kind: 'row'; readonly row: FsanzRow; readonly per: Per; readonly source: SourceRef }
  | { readonly kind: 'invalid'; readonly reason: string; readonly source: SourceRef };

/**
 * Reads a table's rows. Its basis comes from the units row when there is one, else from a sheet
 * name that says per 100 mL, else it is per 100 g (the solids sheet has no units row).
 */
async function* collect(table: Table): AsyncGenerator<Collected> {
  let columns: ColumnMap | undefined;
  let per: Per = table.sheet !== undefined && /per 100 ?ml/i.test(table.sheet) ? 'mL' : 'g';
  let firstData = true;
  for await (const { cells, source } of table.rows) {
    if (!columns) {
      columns = headerColumns(cells, AFCD_LAYOUT, table.where, 'an AFCD nutrient file (xlsx, or a CSV of one of its sheets)');
      continue;
    }
    if (cells.every((cell) => cellText(cell) === '')) continue;
    if (firstData) {
      firstData = false;
      const units = unitsRow(cells, columns);
      if (units) {
        per = units;
        continue;
      }
    }
    if (table.checkWidth && cells.length !== columns.width) {
      yield { kind: 'invalid', reason: `expected ${columns.width} fields, found ${cells.length}`, source };
      continue;
    }
    const row = readRow(cells, columns, AFCD_LAYOUT);
    yield 'reason' in row ? { kind: 'invalid', reason: row.reason, source } : { kind: 'row', row, per, source };
  }
  if (!columns) throw new Error(`${table.where}: empty, no header row`);
}

/**
 * `foodlookup import afcd FILE…`: AFCD Release 2 nutrient file, the `.xlsx` or CSV renderings of
 * its sheets. All rows are read before any food is emitted, because a liquid's per-100 g and
 * per-100 mL rows (in two sheets, or two files) make one food.
 */
export const readAfcd: SourceReader = async function* (paths, options) {
  const region = options.region ?? 'au';
  const collected: Collected[] = [];
  for (const [i, path] of paths.entries()) {
    for await (const table of tablesOf(path)) for await (const entry of collect(table)) collected.push(entry);
    options.onProgress?.((i + 1) / paths.length);
  }
  const rows = collected.filter((e) => e.kind === 'row');
  const first = { g: new Map<string, (typeof rows)[number]>(), mL: new Map<string, (typeof rows)[number]>() };
  for (const entry of rows) if (!first[entry.per].has(entry.row.key)) first[entry.per].set(entry.row.key, entry);

  const tree = new CategoryTree(region);
  for (const entry of collected) {
    if (entry.kind === 'invalid') {
      yield entry;
      continue;
    }
    const { row, per, source } = entry;
    const earlier = first[per].get(row.key)!;
    if (earlier !== entry) {
      yield { kind: 'invalid', reason: `${AFCD_LAYOUT.key} ${row.key} is also in ${describeSource(earlier.source)}`, source };
    } else if (per === 'mL') {
      // Merged into the per-100 g food when the solids sheet has it too.
      if (!first.g.has(row.key)) yield* foodRecords(row, volumeBasis(row.amounts), AFCD, tree, region, source);
    } else {
      yield* solidFood(row, first.mL.get(row.key), tree, region, source);
    }
  }
};

function* solidFood(
  row: FsanzRow, liquid: { row: FsanzRow; source: SourceRef } | undefined, tree: CategoryTree, region: Region, source: SourceRef,
): Generator<CatalogRecord> {
  const basis = basisOf(row.amounts, liquid?.row.amounts);
  yield* foodRecords(row, basis ?? massBasis(row.amounts), AFCD, tree, region, source);
  if (!basis && liquid) {
    yield { kind: 'skipped', reason: `${AFCD_LAYOUT.key} ${row.key}: per-100 mL row not used, no amount > 0 in both sheets relates mL to g`, source: liquid.source };
  }
}
