/**
 * Pure mapping rules from USDA FoodData Central CSV rows to catalogue values; documented in
 * docs/importers/fdc.md. Nothing here reads files.
 */
import type { NutrientKey, Nutrients } from '../../domain/nutrients.js';
import { NUTRIENT_UNITS } from '../../domain/nutrients.js';
import type { Region } from '../../domain/regions.js';
import type { Serving } from '../../domain/records.js';
import { NUTRIENT_NUMBERS, OMEGA3_NUMBERS, finishNutrients, round, servingName } from '../usda-sr/mapping.js';
import { ownValue } from '../../domain/own.js';

/** The data types that are foods to look up; the others support Foundation foods (samples, acquisitions). */
export const FOOD_DATA_TYPES: ReadonlySet<string> = new Set(['foundation_food', 'sr_legacy_food', 'branded_food']);

/**
 * Nutrient numbers (FDC keeps SR's numbering in `nutrient.nutrient_nbr`) for each key, best
 * first: Foundation foods often carry only the newer analyses (sugars 269.3, Atwater energy).
 */
export const NUMBERS_BY_KEY: Readonly<Partial<Record<NutrientKey, readonly string[]>>> = {
  ...Object.fromEntries(Object.entries(NUTRIENT_NUMBERS).map(([nbr, key]) => [key, [nbr]])),
  energy: ['208', '268', '958', '957'],
  sugar: ['269', '269.3'],
  fiber: ['291', '293'],
  totalCarbs: ['205', '205.2'],
  sugarAlcohol: ['299'],
};

/** Every number the importer keeps; other food_nutrient rows are not staged at all. */
export const WANTED_NUMBERS: ReadonlySet<string> = new Set([...Object.values(NUMBERS_BY_KEY).flat(), ...OMEGA3_NUMBERS]);

/** `208.0` and `208` are the same number: releases differ in how they print it. */
export function normaliseNumber(nbr: string): string {
  const text = nbr.trim();
  return /^\d+\.0+$/.test(text) ? text.replace(/\.0+$/, '') : text;
}

/** Grams per source unit, or the factor between energy units; undefined for units we never convert. */
const UNIT_FACTORS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  g: { g: 1, mg: 1e-3, ug: 1e-6, µg: 1e-6 },
  mg: { g: 1e3, mg: 1, ug: 1e-3, µg: 1e-3 },
  IU: { iu: 1 },
  kJ: { kj: 1, kcal: 4.184 },
};

/** Factor from a source unit (`G`, `MG`, `UG`, `KCAL`, `kJ`, `IU`) to a key's unit, if they are commensurable. */
export function unitFactor(sourceUnit: string, key: NutrientKey): number | undefined {
  const factors = UNIT_FACTORS[NUTRIENT_UNITS[key]];
  return factors === undefined ? undefined : ownValue(factors, sourceUnit.trim().toLowerCase());
}

export interface NutrientValue {
  readonly nbr: string;
  readonly unit: string;
  readonly amount: number;
}

/** One food's values → our keys: the best-ranked number per key, omega-3 summed, netCarbs derived. */
export function nutrientsOf(values: readonly NutrientValue[]): Nutrients {
  const byNumber = new Map(values.map((v) => [v.nbr, v]));
  const out: Nutrients = {};
  for (const [key, numbers] of Object.entries(NUMBERS_BY_KEY) as [NutrientKey, readonly string[]][]) {
    for (const nbr of numbers) {
      const value = byNumber.get(nbr);
      const factor = value && unitFactor(value.unit, key);
      if (value && factor !== undefined) {
        out[key] = round(value.amount * factor, 6);
        break;
      }
    }
  }
  let omega3: number | undefined;
  for (const nbr of OMEGA3_NUMBERS) {
    const value = byNumber.get(nbr);
    if (value && value.unit.toLowerCase() === 'g') omega3 = (omega3 ?? 0) + value.amount;
  }
  return finishNutrients(out, undefined, omega3);
}

export interface PortionRow {
  readonly amount: number | undefined;
  readonly unit: string;
  readonly description: string;
  readonly modifier: string;
  readonly grams: number;
}

/**
 * A food_portion row as a serving name: FNDDS rows carry a full `portion_description`; SR Legacy
 * rows have the unit 'undetermined' and the measure in `modifier` ("cup, chopped"); Foundation
 * rows have a real unit and an optional modifier ("1 cup, cubes").
 */
export function portionName(row: PortionRow): string {
  if (row.description !== '' && !/^quantity not specified$/i.test(row.description)) return row.description;
  const amount = row.amount !== undefined && row.amount > 0 ? row.amount : 1;
  const unit = row.unit === '' || row.unit === 'undetermined' ? '' : row.unit;
  const measure = [unit, row.modifier].filter((part) => part !== '').join(', ');
  return servingName(amount, measure || 'portion');
}

export function portionServing(row: PortionRow): Serving | undefined {
  if (!(row.grams > 0)) return undefined;
  return { name: portionName(row), scale: round(row.grams / 100, 6), type: 'mass' };
}

/**
 * The label serving of a branded food: FDC nutrient values are per 100 g (or 100 mL), and
 * `serving_size` is in `serving_size_unit` (g or ml; GDSN data writes GRM/MLT).
 */
export function labelServing(size: number | undefined, unit: string, household: string): Serving | undefined {
  const u = unit.trim().toLowerCase();
  const type = u === 'g' || u === 'grm' ? 'mass' : u === 'ml' || u === 'mlt' ? 'volume' : undefined;
  if (size === undefined || !(size > 0) || type === undefined) return undefined;
  const measured = `${String(Number(size.toFixed(3)))} ${type === 'mass' ? 'g' : 'mL'}`;
  const printed = household.trim();
  // "1 Meal (369g)" already says its weight; "1 Pouch" gets it added.
  const name = printed === '' ? measured : /\d\s*(g|ml)\b/i.test(printed) ? printed : `${printed} (${measured})`;
  return { name, scale: round(size / 100, 6), type };
}

/** Whether a branded food's nutrients are per 100 mL rather than per 100 g. */
export function isLiquid(unit: string): boolean {
  return /^(ml|mlt)$/i.test(unit.trim());
}

const MARKET_REGIONS: Readonly<Record<string, Region>> = { 'united states': 'us', australia: 'au' };

/** The region of a branded food's `market_country`; empty means the United States (older releases have no column). */
export function marketRegion(country: string): Region | undefined {
  const c = country.trim().toLowerCase();
  return c === '' ? 'us' : ownValue(MARKET_REGIONS, c);
}

/** FDC text is hand-entered: stray spaces inside and around names are collapsed. */
export function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A barcode as FDC writes it (GTIN-8 to GTIN-14, leading zeros kept); anything else is dropped. */
export function barcode(gtin: string): string | undefined {
  const code = gtin.trim();
  return /^[0-9]{6,14}$/.test(code) ? code : undefined;
}
