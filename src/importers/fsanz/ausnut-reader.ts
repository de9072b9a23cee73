import { basename } from 'node:path';
import type { SourceReader } from '../formats.js';
import { readCsv } from '../csv-rows.js';
import { AUSNUT_LAYOUT, type ColumnMap } from './columns.js';
import { CategoryTree } from './categories.js';
import { massBasis } from './mapping.js';
import { foodRecords, headerColumns, readRow, type Origin } from './rows.js';

const AUSNUT: Origin = {
  source: 'ausnut',
  note: (row) => `AUSNUT 2011-13 Food ID ${row.key}, Survey ID ${row.code}${row.flag ? `; survey flag: ${row.flag}` : ''}`,
};

/**
 * `foodlookup import ausnut FILE…`: the AUSNUT 2011-13 AHS Food Nutrient Database as CSV (an
 * Excel "Save as CSV" of file 8b; plain or .gz), streamed record by record.
 */
export const readAusnut: SourceReader = async function* (paths, options) {
  const region = options.region ?? 'au';
  const tree = new CategoryTree(region);
  for (const path of paths) {
    const file = basename(path);
    let columns: ColumnMap | undefined;
    for await (const { line, fields } of readCsv(path, { onProgress: options.onProgress })) {
      const source = { file, line };
      if (!columns) {
        columns = headerColumns(fields, AUSNUT_LAYOUT, file, 'an AUSNUT food nutrient CSV');
        continue;
      }
      if (fields.every((f) => f.trim() === '')) continue;
      if (fields.length !== columns.width) {
        yield { kind: 'invalid', reason: `expected ${columns.width} fields, found ${fields.length}`, source };
        continue;
      }
      const row = readRow(fields, columns, AUSNUT_LAYOUT);
      if ('reason' in row) {
        yield { kind: 'invalid', reason: row.reason, source };
        continue;
      }
      yield* foodRecords(row, massBasis(row.amounts), AUSNUT, tree, region, source);
    }
    if (!columns) throw new Error(`${file}: empty file, no header row`);
  }
};
