/**
 * FSANZ (AUSNUT 2011-13, AFCD) amounts → our nutrient keys, pure rules; docs/importers/fsanz.md.
 * Nothing here reads files.
 */
import type { NutrientKey, Nutrients } from '../../domain/nutrients.js';
import type { Serving } from '../../domain/records.js';

/**
 * What a row can tell: our keys that map one to one, and the parts some keys are made of
 * (vitamin A, omega-3, sugar alcohols), or that relate the two AFCD sheets (moisture).
 */
export type Quantity =
  | Exclude<NutrientKey, 'vitaminA' | 'omega3Fat' | 'netCarbs' | 'sugarAlcohol'>
  | 'retinol' | 'provitaminA' | 'ala' | 'lcOmega3' | 'carbsWithoutSugarAlcohols' | 'moisture';

export type Amounts = Partial<Record<Quantity, number>>;

const NUMBER = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * A nutrient cell → an amount, or undefined when empty (unknown, never 0). `tr` / `trace` and
 * `<x` (below the limit of quantification) read as 0: the amount is known to be below any
 * precision the catalogue shows. Anything else that is not a number ≥ 0 throws.
 */
export function parseAmount(cell: unknown): number | undefined {
  if (cell === null || cell === undefined) return undefined;
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell) || cell < 0) throw new Error(`not an amount ≥ 0: ${cell}`);
    return cell;
  }
  if (typeof cell !== 'string') {
    throw new Error(`not a number: ${typeof cell === 'boolean' ? String(cell) : cell instanceof Date ? 'a date' : typeof cell}`);
  }
  const text = cell.trim();
  if (text === '') return undefined;
  if (/^(tr|trace)$/i.test(text) || /^<\s*(\d+(\.\d*)?|\.\d+)$/.test(text)) return 0;
  if (!NUMBER.test(text)) throw new Error(`not a number: '${text.slice(0, 30)}'`);
  return Number(text);
}

export const round = (value: number): number => Number(value.toFixed(6));

/** Keys whose source column holds exactly that nutrient, already in our unit. */
const DIRECT: readonly (Quantity & NutrientKey)[] = [
  'energy', 'fat', 'satFat', 'transFat', 'cholesterol', 'sodium', 'totalCarbs', 'fiber', 'sugar', 'protein', 'vitaminC',
  'calcium', 'iron', 'polyUnsatFat', 'monoUnsatFat', 'alcohol', 'potassium', 'caffeine',
];

/** International units per µg: 1 IU = 0.3 µg retinol = 0.6 µg β-carotene (USDA SR's definition). */
export const IU_PER_UG_RETINOL = 1 / 0.3;
export const IU_PER_UG_BETA_CAROTENE = 1 / 0.6;

/**
 * Our keys from a row's amounts (already in our units). Derived keys need every part known,
 * since a sum of the known parts would understate:
 * - vitaminA (IU) = retinol µg / 0.3 + β-carotene equivalents µg / 0.6. FSANZ's β-carotene
 *   equivalents are β-carotene + ½ (α-carotene + cryptoxanthin), so this is exactly USDA's IU
 *   (the other provitamin A carotenoids at 1.2 µg/IU), the same scale as our us foods.
 * - omega3Fat (mg) = α-linolenic acid + total long-chain n-3 (EPA, DPA, DHA).
 * - sugarAlcohol = available carbohydrate with sugar alcohols − without (≥ 0).
 * - netCarbs = totalCarbs: FSANZ's available carbohydrate already excludes fibre, so
 *   subtracting fibre as the USDA and OFF importers do (their totals include it) would count it twice.
 */
export function nutrientsOf(amounts: Amounts): Nutrients {
  const out: Nutrients = {};
  for (const key of DIRECT) {
    const value = amounts[key];
    if (value !== undefined) out[key] = round(value);
  }
  const { retinol, provitaminA, ala, lcOmega3, totalCarbs, carbsWithoutSugarAlcohols } = amounts;
  if (retinol !== undefined && provitaminA !== undefined) {
    out.vitaminA = round(retinol * IU_PER_UG_RETINOL + provitaminA * IU_PER_UG_BETA_CAROTENE);
  }
  if (ala !== undefined && lcOmega3 !== undefined) out.omega3Fat = round(ala + lcOmega3);
  if (totalCarbs !== undefined && carbsWithoutSugarAlcohols !== undefined) {
    out.sugarAlcohol = round(Math.max(0, totalCarbs - carbsWithoutSugarAlcohols));
  }
  if (totalCarbs !== undefined) out.netCarbs = round(totalCarbs);
  return out;
}

/** The food's generic type: the first comma-separated part of its name ("Juice, apple" → "Juice"). */
export function classificationOf(name: string): string {
  return (name.split(',')[0] ?? name).trim();
}

/** Columns that can relate a food's per-100 mL row to its per-100 g row, in the same unit in both. */
const DENSITY_COLUMNS: readonly Quantity[] = ['energy', 'moisture', 'fat', 'protein', 'totalCarbs', 'alcohol'];

/**
 * Grams in 1 mL of a food that is in both AFCD sheets: the per-100 mL amount ÷ the per-100 g
 * amount of the column with the largest per-100 g value (most significant digits, so the least
 * rounding error). Undefined when no column has a value > 0 in both rows.
 */
export function density(per100g: Amounts, per100ml: Amounts): number | undefined {
  let best: Quantity | undefined;
  for (const q of DENSITY_COLUMNS) {
    const g = per100g[q];
    const ml = per100ml[q];
    if (g === undefined || ml === undefined || !(g > 0) || !(ml > 0)) continue;
    if (best === undefined || g > per100g[best]!) best = q;
  }
  return best === undefined ? undefined : round(per100ml[best]! / per100g[best]!);
}

export interface Basis {
  /** The amounts the food's nutrients are made from. */
  readonly amounts: Amounts;
  readonly mass?: number;
  readonly volume?: number;
  readonly servings: readonly Serving[];
}

const round3 = (value: number): number => Number(value.toFixed(3));
const GRAMS: Serving = { name: '100 g', scale: 1, type: 'mass' };

/** Nutrients per 100 g (AUSNUT, and the AFCD solids sheet). */
export function massBasis(per100g: Amounts): Basis {
  return { amounts: per100g, mass: 100, servings: [GRAMS] };
}

/** Nutrients per 100 mL (a food only in the AFCD liquids sheet). */
export function volumeBasis(per100ml: Amounts): Basis {
  return { amounts: per100ml, volume: 100, servings: [{ name: '100 mL', scale: 1, type: 'volume' }] };
}

/**
 * What a food's nutrients refer to, from its AFCD per-100 g row, per-100 mL row, or both. A food
 * in both sheets stays one food per 100 g (mass 100) with a `100 mL` serving scaled by its
 * density, and `volume` = the millilitres that weigh 100 g; a food only in the liquids sheet is
 * per 100 mL (volume 100). Undefined when the two rows cannot be related (no density): the
 * caller keeps the per-100 g food and reports the liquid row.
 */
export function basisOf(per100g: Amounts | undefined, per100ml: Amounts | undefined): Basis | undefined {
  if (per100g && per100ml) {
    const d = density(per100g, per100ml);
    if (d === undefined) return undefined;
    return { amounts: per100g, mass: 100, volume: round3(100 / d), servings: [GRAMS, { name: '100 mL', scale: round3(d), type: 'volume' }] };
  }
  if (per100g) return massBasis(per100g);
  if (per100ml) return volumeBasis(per100ml);
  return undefined;
}
