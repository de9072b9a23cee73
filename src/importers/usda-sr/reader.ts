import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { CatalogRecord, CatalogFood, Serving, SourceRef } from '../../domain/records.js';
import type { Nutrients } from '../../domain/nutrients.js';
import { GENERIC_BRAND_IDS, type Region } from '../../domain/regions.js';
import { deriveId, ID_NAMESPACES } from '../../domain/ids.js';
import type { SourceReader } from '../formats.js';
import { findTables, readAllRows, type SrRow } from './ascii-file.js';
import { ownValue } from '../../domain/own.js';
import {
  ENERGY_KCAL, FOOD_GROUPS, MIN_KIND_SIZE, NUTRIENT_NUMBERS, OMEGA3_NUMBERS, classification, finishNutrients, foodKind,
  round, servingName, tagsFor,
} from './mapping.js';

/** Fields per row of each table; ABBREV has 51 (SR21: no vitamin D) or 53 (SR22 on). */
const FIELD_COUNTS: Readonly<Record<string, readonly number[]>> = {
  FOOD_DES: [14], WEIGHT: [7], FD_GROUP: [2], NUTR_DEF: [6], ABBREV: [51, 53],
};

/** ABBREV columns used; the tail ones counted from the end, so both layouts work. */
const ABBREV = {
  kcal: 3, protein: 4, fat: 5, carbs: 7, fiber: 8, sugar: 9, calcium: 10, iron: 11, potassium: 14, sodium: 15, vitaminC: 20,
  vitaminA: 32,
  fromEnd: { satFat: 9, monoUnsatFat: 8, polyUnsatFat: 7, cholesterol: 6 },
} as const;

class RowProblem extends Error {}

function num(fields: readonly string[], index: number, what: string): number | undefined {
  const text = (fields[index] ?? '').trim();
  if (text === '') return undefined;
  if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(text)) throw new RowProblem(`${what} is not a number: '${text.slice(0, 30)}'`);
  return Number(text);
}

interface SourceFood {
  ndb: string;
  group: string;
  description: string;
  commonNames: string;
  manufacturer: string;
  refuseDescription: string;
  refuse: number | undefined;
  source: SourceRef;
}

/** Reads one SR folder: every row checked, every food mapped, records in dependency order. */
async function* readFolder(dir: string, region: Region): AsyncGenerator<CatalogRecord> {
  if (!statSync(dir).isDirectory()) throw new Error(`${dir}: usda-sr reads a folder of SR ASCII files`);
  const tables = findTables(dir);
  const hasAbbrev = tables.has('ABBREV');
  const hasFull = tables.has('NUT_DATA') && tables.has('NUTR_DEF');
  if (!tables.has('FOOD_DES') || !tables.has('WEIGHT') || (!hasAbbrev && !hasFull)) {
    throw new Error(`${dir}: expected FOOD_DES, WEIGHT and either ABBREV or NUT_DATA + NUTR_DEF (plain or .gz); found ${[...tables.keys()].join(', ') || 'none'}`);
  }
  const invalid: CatalogRecord[] = [];
  /** Rows of a table, each checked by `read`; a bad row becomes an invalid record. */
  const rows = async (table: string, read: (row: SrRow) => void): Promise<void> => {
    const path = tables.get(table);
    if (!path) return;
    const file = basename(path);
    for (const row of await readAllRows(path)) {
      try {
        const counts = FIELD_COUNTS[table];
        if (counts && !counts.includes(row.fields.length)) {
          throw new RowProblem(`expected ${counts.join(' or ')} fields, found ${row.fields.length}`);
        }
        read(row);
      } catch (error) {
        if (!(error instanceof RowProblem)) throw error;
        invalid.push({ kind: 'invalid', reason: error.message, source: { file, line: row.line } });
      }
    }
  };

  const groups = new Map<string, string>();
  await rows('FD_GROUP', ({ fields }) => groups.set(fields[0]!, fields[1]!.trim()));
  if (groups.size === 0) for (const [code, name] of Object.entries(FOOD_GROUPS)) groups.set(code, name);

  const foods = new Map<string, SourceFood>();
  const foodFile = basename(tables.get('FOOD_DES')!);
  await rows('FOOD_DES', ({ fields, line }) => {
    const [ndb = '', group = '', description = ''] = fields;
    if (!/^\d{5}$/.test(ndb)) throw new RowProblem(`NDB_No must be 5 digits: '${ndb.slice(0, 20)}'`);
    if (!groups.has(group)) throw new RowProblem(`unknown food group '${group.slice(0, 20)}' for NDB ${ndb}`);
    if (description.trim() === '') throw new RowProblem(`NDB ${ndb} has no description`);
    if (foods.has(ndb)) throw new RowProblem(`NDB ${ndb} appears twice`);
    foods.set(ndb, {
      ndb, group, description: description.trim(), commonNames: fields[4] ?? '', manufacturer: (fields[5] ?? '').trim(),
      refuseDescription: (fields[7] ?? '').trim(), refuse: num(fields, 8, 'Refuse'), source: { file: foodFile, line },
    });
  });

  /** Foods left out because one of their rows was invalid (reported with that row). */
  const broken = new Set<string>();
  const knownFood = (ndb: string | undefined, table: string): string => {
    if (ndb === undefined || !foods.has(ndb)) throw new RowProblem(`${table} row for unknown NDB '${(ndb ?? '').slice(0, 20)}'`);
    return ndb;
  };
  const guard = (ndb: string | undefined, read: () => void): void => {
    try {
      read();
    } catch (error) {
      if (error instanceof RowProblem && ndb !== undefined && foods.has(ndb)) {
        broken.add(ndb);
        throw new RowProblem(`${error.message} (food ${ndb} left out)`);
      }
      throw error;
    }
  };

  const nutrients = new Map<string, { values: Nutrients; kcal?: number; omega3?: number }>();
  const entry = (ndb: string): { values: Nutrients; kcal?: number; omega3?: number } => {
    let e = nutrients.get(ndb);
    if (!e) nutrients.set(ndb, (e = { values: {} }));
    return e;
  };
  if (hasAbbrev) {
    await rows('ABBREV', ({ fields }) => {
      const ndb = knownFood(fields[0], 'ABBREV');
      guard(ndb, () => {
        const e = entry(ndb);
        const n = fields.length;
        const set = (key: keyof Nutrients, index: number): void => {
          const value = num(fields, index, key);
          if (value !== undefined) e.values[key] = value;
        };
        e.kcal = num(fields, ABBREV.kcal, 'Energ_Kcal');
        set('protein', ABBREV.protein); set('fat', ABBREV.fat); set('totalCarbs', ABBREV.carbs); set('fiber', ABBREV.fiber);
        set('sugar', ABBREV.sugar); set('calcium', ABBREV.calcium); set('iron', ABBREV.iron); set('potassium', ABBREV.potassium);
        set('sodium', ABBREV.sodium); set('vitaminC', ABBREV.vitaminC); set('vitaminA', ABBREV.vitaminA);
        for (const [key, back] of Object.entries(ABBREV.fromEnd)) set(key as keyof Nutrients, n - back);
      });
    });
  } else {
    const known = new Set<string>();
    await rows('NUTR_DEF', ({ fields }) => known.add(fields[0]!));
    await rows('NUT_DATA', ({ fields }) => {
      if (fields.length < 3) throw new RowProblem(`expected at least 3 fields, found ${fields.length}`);
      const ndb = knownFood(fields[0], 'NUT_DATA');
      guard(ndb, () => {
        const number = fields[1]!;
        if (!known.has(number)) throw new RowProblem(`nutrient ${number.slice(0, 10)} is not in NUTR_DEF`);
        const value = num(fields, 2, `nutrient ${number}`);
        if (value === undefined) return;
        const e = entry(ndb);
        if (number === ENERGY_KCAL) e.kcal = value;
        else if ((OMEGA3_NUMBERS as readonly string[]).includes(number)) e.omega3 = (e.omega3 ?? 0) + value;
        else {
          const key = ownValue(NUTRIENT_NUMBERS, number);
          if (key) e.values[key] = value;
        }
      });
    });
  }

  const servings = new Map<string, { seq: number; serving: Serving }[]>();
  await rows('WEIGHT', ({ fields }) => {
    const ndb = knownFood(fields[0], 'WEIGHT');
    guard(ndb, () => {
      const seq = num(fields, 1, 'Seq') ?? 0;
      const amount = num(fields, 2, 'Amount');
      const grams = num(fields, 4, 'Gm_Wgt');
      const measure = (fields[3] ?? '').trim();
      if (amount === undefined || grams === undefined || measure === '') throw new RowProblem('Amount, Msre_Desc and Gm_Wgt are required');
      if (grams <= 0 || amount <= 0) return; // a zero weight cannot scale anything: not a serving
      const list = servings.get(ndb) ?? [];
      list.push({ seq, serving: { name: servingName(amount, measure), scale: round(grams / 100, 6), type: 'mass' } });
      servings.set(ndb, list);
    });
  });

  yield* invalid;

  // Brands: one per manufacturer; the rest under the generic brand of the region.
  const brandIds = new Map<string, string>();
  const kept = [...foods.values()].filter((f) => !broken.has(f.ndb)).sort((a, b) => (a.ndb < b.ndb ? -1 : 1));
  for (const food of kept) {
    if (food.manufacturer === '' || brandIds.has(food.manufacturer)) continue;
    const id = deriveId(ID_NAMESPACES.usdaBrand, `${region}:${food.manufacturer}`);
    brandIds.set(food.manufacturer, id);
    yield { kind: 'brand', value: { id, name: food.manufacturer, region }, source: food.source };
  }

  // Categories: group › kind, small kinds folded into "Other <group>".
  const kindSizes = new Map<string, number>();
  const kindKey = (f: SourceFood): string => `${f.group}:${foodKind(f.description)}`;
  for (const food of kept) kindSizes.set(kindKey(food), (kindSizes.get(kindKey(food)) ?? 0) + 1);
  const categoryOf = new Map<string, string>();
  const emitted = new Set<string>();
  const categories: CatalogRecord[] = [];
  for (const food of kept) {
    const top = deriveId(ID_NAMESPACES.usdaCategory, `${region}:${food.group}`);
    const groupName = groups.get(food.group)!;
    if (!emitted.has(top)) {
      emitted.add(top);
      categories.push({ kind: 'category', value: { id: top, name: groupName, region }, source: food.source });
    }
    const small = (kindSizes.get(kindKey(food)) ?? 0) < MIN_KIND_SIZE;
    const leafName = small ? `Other ${groupName}` : foodKind(food.description);
    const leaf = deriveId(ID_NAMESPACES.usdaCategory, `${region}:${food.group}:${small ? '*other*' : foodKind(food.description)}`);
    if (!emitted.has(leaf)) {
      emitted.add(leaf);
      categories.push({ kind: 'category', value: { id: leaf, name: leafName, region, parent: top }, source: food.source });
    }
    categoryOf.set(food.ndb, leaf);
  }
  yield* categories;

  const tagIds = new Map<string, string>();
  const foodTags = new Map<string, string[]>();
  for (const food of kept) {
    const names = tagsFor(food.description, food.group);
    foodTags.set(food.ndb, names);
    for (const name of names) {
      if (tagIds.has(name)) continue;
      const id = deriveId(ID_NAMESPACES.usdaTag, name);
      tagIds.set(name, id);
      yield { kind: 'tag', value: { id, name }, source: food.source };
    }
  }

  for (const food of kept) {
    const n = nutrients.get(food.ndb);
    const otherNames = food.commonNames.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const refuse = food.refuse !== undefined && food.refuse > 0 ? `Refuse: ${food.refuse}%` : '';
    const note = refuse && food.refuseDescription ? `${refuse} (${food.refuseDescription})` : refuse || (food.refuseDescription ? `Refuse: ${food.refuseDescription}` : '');
    const extra = (servings.get(food.ndb) ?? []).sort((a, b) => a.seq - b.seq).map((s) => s.serving);
    const seen = new Set<string>(['100 g']);
    const value: CatalogFood = {
      foodId: deriveId(ID_NAMESPACES.usdaFood, `${region}:${food.ndb}`),
      region,
      brand: food.manufacturer ? brandIds.get(food.manufacturer)! : GENERIC_BRAND_IDS[region],
      category: categoryOf.get(food.ndb)!,
      tags: (foodTags.get(food.ndb) ?? []).map((name) => tagIds.get(name)!),
      name: food.description,
      ...(otherNames.length > 0 ? { otherNames } : {}),
      ...(note ? { note } : {}),
      classification: classification(food.description),
      mass: 100,
      servings: [{ name: '100 g', scale: 1, type: 'mass' }, ...extra.filter((s) => !seen.has(s.name) && seen.add(s.name))],
      upcs: {},
      nutrients: n ? finishNutrients(n.values, n.kcal, n.omega3) : {},
    };
    yield { kind: 'food', value, source: food.source };
  }
}

/** `foodlookup import usda-sr DIR…`: USDA SR ASCII folders, abbreviated or full layout. */
export const readUsdaSr: SourceReader = async function* (paths, options) {
  for (const dir of paths) yield* readFolder(dir, options.region ?? 'us');
};
