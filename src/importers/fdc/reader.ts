import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CatalogFood, CatalogRecord, Serving, SourceRef } from '../../domain/records.js';
import { GENERIC_BRAND_IDS, type Region } from '../../domain/regions.js';
import { deriveId, ID_NAMESPACES } from '../../domain/ids.js';
import { fold } from '../../domain/text.js';
import type { SourceReader } from '../formats.js';
import { columnsOf, fileSize, readCsv } from '../csv-rows.js';
import { classification, tagsFor } from '../usda-sr/mapping.js';
import { FirstSeen } from '../first-seen.js';
import { Staging } from './staging.js';
import {
  FOOD_DATA_TYPES, WANTED_NUMBERS, barcode, isLiquid, labelServing, marketRegion, normaliseNumber, nutrientsOf,
  portionServing, tidy, type NutrientValue,
} from './mapping.js';

/** Fixed forever: every FoodData Central id derives from it. */
const NS = '3d5e7f90-1a2b-5c3d-9e4f-5a6b7c8d9e0f';

/** The longest text a catalogue field holds (contract C4). */
const MAX_TEXT = 1000;

/** The tables read, small ones first: the big ones are checked against them while streaming. */
const TABLES = ['nutrient', 'measure_unit', 'food_category', 'food', 'branded_food', 'food_nutrient', 'food_portion'] as const;
type Table = (typeof TABLES)[number];

/** Columns each table must have; the others are looked up by name when present. */
const REQUIRED: Readonly<Record<Table, readonly string[]>> = {
  nutrient: ['id', 'nutrient_nbr', 'unit_name'],
  measure_unit: ['id', 'name'],
  food_category: ['id', 'description'],
  food: ['fdc_id', 'data_type', 'description'],
  branded_food: ['fdc_id', 'brand_owner', 'gtin_upc'],
  food_nutrient: ['fdc_id', 'nutrient_id', 'amount'],
  food_portion: ['fdc_id', 'gram_weight'],
};

class RowProblem extends Error {}

function integer(text: string | undefined, what: string): number {
  const t = (text ?? '').trim();
  if (!/^\d{1,15}$/.test(t)) throw new RowProblem(`${what} must be a whole number: '${t.slice(0, 30)}'`);
  return Number(t);
}

function decimal(text: string | undefined, what: string): number | undefined {
  const t = (text ?? '').trim();
  if (t === '') return undefined;
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t)) throw new RowProblem(`${what} is not a number: '${t.slice(0, 30)}'`);
  return Number(t);
}

/** Runs an insert keyed by fdc_id; a second row for the same food is the row's problem. */
function onceOnly(fdc: number, insert: () => unknown): void {
  try {
    insert();
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new RowProblem(`fdc_id ${fdc} appears twice`);
    throw error;
  }
}

/** Table name → files, over every folder given (a Foundation and a Branded download may be read together). */
function findTables(paths: readonly string[]): Map<Table, string[]> {
  const found = new Map<Table, string[]>();
  for (const dir of paths) {
    if (!statSync(dir).isDirectory()) throw new Error(`${dir}: fdc reads folders of FoodData Central CSV files (an unzipped download)`);
    for (const entry of readdirSync(dir).sort()) {
      const table = /^([a-z_]+)\.csv(\.gz)?$/i.exec(entry)?.[1]?.toLowerCase();
      if (table && (TABLES as readonly string[]).includes(table)) found.set(table as Table, [...(found.get(table as Table) ?? []), join(dir, entry)]);
    }
  }
  if (!found.has('food') && !found.has('branded_food')) {
    throw new Error(`${paths.join(', ')}: no food.csv or branded_food.csv (expected an unzipped FoodData Central CSV download)`);
  }
  if (found.has('food_nutrient') && !found.has('nutrient')) throw new Error('food_nutrient.csv needs nutrient.csv from the same download');
  return found;
}

interface Row {
  readonly get: (column: string) => string;
  readonly source: SourceRef & { line: number };
}

/**
 * Reads every file of a table, header first, and hands each row to `read`. A row with the wrong
 * field count or a bad value becomes a problem with its file and line; a missing column is fatal.
 */
async function eachRow(
  files: readonly string[] | undefined, table: Table, progress: (file: string, bytes: number) => void,
  read: (row: Row) => void, problem: (source: SourceRef & { line: number }, reason: string, fdcId: number | undefined) => void,
): Promise<void> {
  for (const path of files ?? []) {
    const file = basename(path);
    let columns: Map<string, number> | undefined;
    let width = 0;
    for await (const { fields, line } of readCsv(path, { onBytes: (bytes) => progress(path, bytes) })) {
      if (!columns) {
        columns = columnsOf(fields);
        width = fields.length;
        const missing = REQUIRED[table].filter((c) => !columns!.has(c));
        if (missing.length > 0) throw new Error(`${file}: no column ${missing.map((c) => `'${c}'`).join(', ')} (found ${fields.join(', ').slice(0, 200)})`);
        continue;
      }
      const source = { file, line };
      const at = columns;
      const get = (column: string): string => {
        const i = at.get(column);
        return i === undefined ? '' : (fields[i] ?? '');
      };
      const fdc = /^\d+$/.test(get('fdc_id').trim()) ? Number(get('fdc_id')) : undefined;
      try {
        if (fields.length !== width) throw new RowProblem(`expected ${width} fields, found ${fields.length}`);
        read({ get, source });
      } catch (error) {
        if (!(error instanceof RowProblem)) throw error;
        problem(source, error.message, fdc);
      }
    }
  }
}

interface FoodRow {
  fdc_id: number; data_type: string; description: string; category_id: string; file: string; line: number;
  brand_owner: string | null; brand_name: string | null; gtin_upc: string | null; serving_size: number | null;
  serving_unit: string | null; household: string | null; category: string | null; market: string | null;
  ingredients: string | null; nutrients: string; portions: string;
}

/** `foodlookup import fdc DIR…`: unzipped FoodData Central CSV downloads (Foundation, SR Legacy, Branded). */
export const readFdc: SourceReader = async function* (paths, options) {
  const tables = findTables(paths);
  const all = [...tables.values()].flat();
  const sizes = new Map<string, number>();
  for (const path of all) sizes.set(path, await fileSize(path));
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  const read = new Map<string, number>();
  const progress = (path: string, bytes: number): void => {
    read.set(path, bytes);
    // Staging is most of the work; the last 10 % is the pass that emits the records.
    if (total > 0) options.onProgress?.(0.9 * Math.min(1, [...read.values()].reduce((a, b) => a + b, 0) / total));
  };

  const staging = new Staging();
  try {
    const db = staging.db;
    const addProblem = db.prepare('INSERT INTO problem (file, line, reason, fdc_id) VALUES (?, ?, ?, ?)');
    const problem = (source: SourceRef & { line: number }, reason: string, fdcId: number | undefined): void => {
      addProblem.run(source.file, source.line, reason, fdcId ?? null);
    };
    const nutrients = new Map<string, { nbr: string; unit: string }>();
    const units = new Map<string, string>();
    const groups = new Map<string, { code: string; name: string }>();
    /** Rows of data types that are not foods (samples, acquisitions), counted per file and type. */
    const support = new Map<string, number>();

    await staging.load(async () => {
      await eachRow(tables.get('nutrient'), 'nutrient', progress, ({ get }) => {
        nutrients.set(get('id').trim(), { nbr: normaliseNumber(get('nutrient_nbr')), unit: get('unit_name').trim() });
      }, problem);
      await eachRow(tables.get('measure_unit'), 'measure_unit', progress, ({ get }) => void units.set(get('id').trim(), get('name').trim()), problem);
      await eachRow(tables.get('food_category'), 'food_category', progress, ({ get }) => {
        groups.set(get('id').trim(), { code: get('code').trim(), name: tidy(get('description')) });
      }, problem);

      const addFood = db.prepare('INSERT INTO food VALUES (?, ?, ?, ?, ?, ?)');
      await eachRow(tables.get('food'), 'food', progress, ({ get, source }) => {
        const fdc = integer(get('fdc_id'), 'fdc_id');
        const type = get('data_type').trim();
        if (!FOOD_DATA_TYPES.has(type)) {
          const key = `${source.file}\t${type || '(none)'}`;
          support.set(key, (support.get(key) ?? 0) + 1);
          return;
        }
        const description = tidy(get('description'));
        if (description === '') throw new RowProblem(`fdc_id ${fdc} has no description`);
        onceOnly(fdc, () => addFood.run(fdc, type, description.slice(0, MAX_TEXT), get('food_category_id').trim(), source.file, source.line));
      }, problem);

      const addBranded = db.prepare('INSERT INTO branded VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      await eachRow(tables.get('branded_food'), 'branded_food', progress, ({ get, source }) => {
        const fdc = integer(get('fdc_id'), 'fdc_id');
        const size = decimal(get('serving_size'), 'serving_size');
        onceOnly(fdc, () => addBranded.run(
          fdc, tidy(get('brand_owner')), tidy(get('brand_name')), get('gtin_upc').trim(), size ?? null, get('serving_size_unit').trim(),
          tidy(get('household_serving_fulltext')), tidy(get('branded_food_category')), tidy(get('market_country')),
          tidy(get('ingredients')), source.file, source.line,
        ));
      }, problem);

      const addNutrient = db.prepare('INSERT INTO food_nutrient VALUES (?, ?, ?, ?)');
      await eachRow(tables.get('food_nutrient'), 'food_nutrient', progress, ({ get }) => {
        const fdc = integer(get('fdc_id'), 'fdc_id');
        const id = get('nutrient_id').trim();
        const def = nutrients.get(id);
        if (!def) {
          if (!/^\d+$/.test(id)) throw new RowProblem(`nutrient_id must be a whole number: '${id.slice(0, 30)}'`);
          return; // a retired nutrient that nutrient.csv no longer lists: nothing of ours
        }
        if (!WANTED_NUMBERS.has(def.nbr)) return;
        const amount = decimal(get('amount'), `amount of nutrient ${def.nbr}`);
        if (amount !== undefined) addNutrient.run(fdc, def.nbr, def.unit, amount);
      }, problem);

      const addPortion = db.prepare('INSERT INTO portion VALUES (?, ?, ?, ?, ?, ?, ?)');
      await eachRow(tables.get('food_portion'), 'food_portion', progress, ({ get }) => {
        const fdc = integer(get('fdc_id'), 'fdc_id');
        const grams = decimal(get('gram_weight'), 'gram_weight');
        if (grams === undefined || grams <= 0) return; // a portion without a weight cannot scale anything
        const seq = decimal(get('seq_num'), 'seq_num');
        addPortion.run(
          fdc, seq ?? null, decimal(get('amount'), 'amount') ?? null, units.get(get('measure_unit_id').trim()) ?? '',
          tidy(get('portion_description')), tidy(get('modifier')), grams,
        );
      }, problem);
    });
    staging.index();

    const problems = db.prepare(`SELECT file, line, reason, fdc_id, EXISTS (SELECT 1 FROM food f WHERE f.fdc_id = p.fdc_id) AS left_out
      FROM problem p ORDER BY rowid`);
    for (const p of problems.iterate() as IterableIterator<{ file: string; line: number; reason: string; fdc_id: number | null; left_out: number }>) {
      yield { kind: 'invalid', reason: p.left_out ? `${p.reason} (food ${p.fdc_id} left out)` : p.reason, source: { file: p.file, line: p.line } };
    }
    for (const [key, count] of support) {
      const [file = '', type = ''] = key.split('\t');
      yield { kind: 'skipped', reason: `${count} ${type} rows left out: FDC data that supports its foods (samples, acquisitions), not foods to look up`, source: { file } };
    }
    const orphans = db.prepare('SELECT fdc_id, file, line FROM branded b WHERE NOT EXISTS (SELECT 1 FROM food f WHERE f.fdc_id = b.fdc_id) ORDER BY file, line');
    for (const o of orphans.iterate() as IterableIterator<{ fdc_id: number; file: string; line: number }>) {
      yield { kind: 'invalid', reason: `fdc_id ${o.fdc_id} has no food.csv row (its description and type are there)`, source: { file: o.file, line: o.line } };
    }

    const foods = db.prepare(`
      SELECT f.*, b.brand_owner, b.brand_name, b.gtin_upc, b.serving_size, b.serving_unit, b.household, b.category, b.market, b.ingredients,
        (SELECT json_group_array(json_array(n.nbr, n.unit, n.amount)) FROM food_nutrient n WHERE n.fdc_id = f.fdc_id) AS nutrients,
        (SELECT json_group_array(json_array(p.amount, p.unit, p.description, p.modifier, p.grams) ORDER BY p.seq, p.rowid)
           FROM portion p WHERE p.fdc_id = f.fdc_id) AS portions
      FROM food f LEFT JOIN branded b ON b.fdc_id = f.fdc_id
      WHERE NOT EXISTS (SELECT 1 FROM problem WHERE problem.fdc_id = f.fdc_id)
      ORDER BY f.fdc_id`);
    const emitter = new FirstSeen();
    for (const row of foods.iterate() as IterableIterator<FoodRow>) yield* foodRecords(row, options.region ?? 'us', groups, emitter);
    options.onProgress?.(1);
  } finally {
    staging.close();
  }
};

function* foodRecords(
  row: FoodRow, defaultRegion: Region, groups: ReadonlyMap<string, { code: string; name: string }>, emitter: FirstSeen,
): Generator<CatalogRecord> {
  const source = { file: row.file, line: row.line };
  const branded = row.brand_owner !== null;
  const region = branded ? marketRegion(row.market ?? '') : defaultRegion;
  if (region === undefined) {
    yield { kind: 'skipped', reason: `fdc_id ${row.fdc_id} is sold in ${row.market}, not in Australia or the United States`, source };
    return;
  }

  let brand: string = GENERIC_BRAND_IDS[region];
  const brandName = branded ? (row.brand_name || row.brand_owner || '') : '';
  if (brandName !== '') {
    brand = deriveId(NS, `brand:${region}:${fold(brandName)}`);
    if (emitter.first(brand)) yield { kind: 'brand', value: { id: brand, name: brandName, region }, source };
  }

  // Branded foods: Branded foods › their branded_food_category; the others: their food group.
  let category: string;
  let leafName: string;
  let groupCode = '';
  if (branded) {
    const root = deriveId(NS, `cat:${region}:branded`);
    if (emitter.first(root)) yield { kind: 'category', value: { id: root, name: 'Branded foods', region }, source };
    leafName = row.category || 'Other branded foods';
    category = deriveId(NS, `cat:${region}:branded:${fold(leafName)}`);
    if (emitter.first(category)) yield { kind: 'category', value: { id: category, name: leafName, region, parent: root }, source };
  } else {
    const group = groups.get(row.category_id);
    groupCode = group?.code ?? '';
    leafName = group?.name || 'Uncategorized';
    category = deriveId(NS, `cat:${region}:group:${group ? row.category_id : ''}`);
    if (emitter.first(category)) yield { kind: 'category', value: { id: category, name: leafName, region }, source };
  }

  const tags: string[] = [];
  for (const name of tagsFor(row.description, groupCode)) {
    const id = deriveId(ID_NAMESPACES.usdaTag, name);
    tags.push(id);
    if (emitter.first(id)) yield { kind: 'tag', value: { id, name }, source };
  }

  const liquid = branded && isLiquid(row.serving_unit ?? '');
  const servings: Serving[] = [liquid ? { name: '100 mL', scale: 1, type: 'volume' } : { name: '100 g', scale: 1, type: 'mass' }];
  const label = branded ? labelServing(row.serving_size ?? undefined, row.serving_unit ?? '', row.household ?? '') : undefined;
  const portions = (JSON.parse(row.portions) as [number | null, string, string, string, number][])
    .map(([amount, unit, description, modifier, grams]) => portionServing({ amount: amount ?? undefined, unit, description, modifier, grams }));
  const names = new Set(servings.map((s) => s.name));
  for (const serving of [label, ...portions]) {
    if (serving && !names.has(serving.name)) {
      names.add(serving.name);
      servings.push(serving);
    }
  }
  const code = barcode(row.gtin_upc ?? '');
  const values = (JSON.parse(row.nutrients) as [string, string, number][]).map(([nbr, unit, amount]): NutrientValue => ({ nbr, unit, amount }));
  const ingredients = row.ingredients ?? '';
  const food: CatalogFood = {
    foodId: deriveId(NS, `food:${region}:${row.fdc_id}`),
    region, brand, category, tags,
    name: row.description,
    classification: branded ? leafName : classification(row.description),
    ...(ingredients !== '' ? { description: ingredients.length > MAX_TEXT ? `${ingredients.slice(0, MAX_TEXT - 1)}…` : ingredients } : {}),
    ...(liquid ? { volume: 100 } : { mass: 100 }),
    servings,
    upcs: code ? { [code]: { servingIndex: label ? servings.findIndex((s) => s.name === label.name) : 0, quantity: 1 } } : {},
    nutrients: nutrientsOf(values),
  };
  yield { kind: 'food', value: food, source };
}
