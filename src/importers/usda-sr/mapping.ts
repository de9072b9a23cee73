/**
 * Pure mapping rules from USDA Standard Reference rows to catalogue records; documented in
 * docs/usda-sr.md. Nothing here reads files.
 */
import type { Nutrients } from '../../domain/nutrients.js';
import { KJ_PER_KCAL } from '../../domain/nutrients.js';

/** Food group names (USDA's FD_GROUP table), used when a release has no FD_GROUP file. */
export const FOOD_GROUPS: Readonly<Record<string, string>> = {
  '0100': 'Dairy and Egg Products', '0200': 'Spices and Herbs', '0300': 'Baby Foods', '0400': 'Fats and Oils',
  '0500': 'Poultry Products', '0600': 'Soups, Sauces, and Gravies', '0700': 'Sausages and Luncheon Meats',
  '0800': 'Breakfast Cereals', '0900': 'Fruits and Fruit Juices', '1000': 'Pork Products',
  '1100': 'Vegetables and Vegetable Products', '1200': 'Nut and Seed Products', '1300': 'Beef Products',
  '1400': 'Beverages', '1500': 'Finfish and Shellfish Products', '1600': 'Legumes and Legume Products',
  '1700': 'Lamb, Veal, and Game Products', '1800': 'Baked Products', '1900': 'Sweets',
  '2000': 'Cereal Grains and Pasta', '2100': 'Fast Foods', '2200': 'Meals, Entrees, and Sidedishes', '2500': 'Snacks',
  '3500': 'American Indian/Alaska Native Foods', '3600': 'Restaurant Foods',
};

/** A kind with fewer foods than this goes to its group's "Other …" leaf. */
export const MIN_KIND_SIZE = 3;

/** The food kind: the first comma-separated part of the long description. */
export function foodKind(description: string): string {
  return (description.split(',')[0] ?? description).trim();
}

/** SR writes brand and restaurant names in capitals ("KELLOGG'S", "CAMPBELL", "McDONALD'S"). */
const hasBrandWord = (part: string): boolean => /[A-Z]{3,}/.test(part);

/**
 * A generic food type that groups like foods across brands: the first two comma-separated
 * parts of the description ("Cheese, cheddar"), passing over parts that name a brand, so
 * "Cereals ready-to-eat, KELLOGG, KELLOGG'S ALL-BRAN" is "Cereals ready-to-eat"; a description
 * that opens with brand parts ("CAMPBELL Soup Company, …") is classified by its first part.
 */
export function classification(description: string): string {
  const parts = description.split(',').map((p) => p.trim()).filter((p) => p !== '');
  const first = parts.findIndex((p) => !hasBrandWord(p));
  // A description that starts with brand parts has no generic head: its first part is its type.
  if (first !== 0) return parts[0] ?? description.trim();
  return parts.filter((p) => !hasBrandWord(p)).slice(0, 2).join(', ');
}

/** The tag vocabulary: each tag and the rule that gives it (description words or group). */
export const TAG_RULES: readonly { readonly name: string; readonly test: (description: string, group: string) => boolean }[] = [
  { name: 'Raw', test: (d) => /\braw\b/.test(d) },
  { name: 'Cooked', test: (d) => /\b(cooked|boiled|baked|roasted|fried|broiled|braised|grilled|stewed|steamed|microwaved|simmered|poached|scrambled)\b/.test(d) },
  { name: 'Canned', test: (d) => /\bcanned\b/.test(d) },
  { name: 'Frozen', test: (d) => /\bfrozen\b/.test(d) },
  { name: 'Dried', test: (d) => /\b(dried|dehydrated|dry)\b/.test(d) },
  { name: 'Fat free', test: (d) => /\b(fat[- ]free|nonfat|non-fat|skim)\b/.test(d) },
  { name: 'Low fat', test: (d) => /\b(low[- ]?fat|reduced fat|lowfat)\b/.test(d) },
  { name: 'Unsalted', test: (d) => /\b(without salt|unsalted|no salt added)\b/.test(d) },
  { name: 'Sweetened', test: (d) => /\bsweetened\b/.test(d) },
  { name: 'Unsweetened', test: (d) => /\bunsweetened\b/.test(d) },
  { name: 'Fast food', test: (_d, g) => g === '2100' },
  { name: 'Baby food', test: (_d, g) => g === '0300' },
];

export function tagsFor(description: string, group: string): string[] {
  const lower = description.toLowerCase();
  return TAG_RULES.filter((rule) => rule.test(lower, group)).map((rule) => rule.name);
}

/** `1 cup, diced`; amounts written naturally (1, 0.5, 1.5). */
export function servingName(amount: number, measure: string): string {
  return `${String(Number(amount.toFixed(3)))} ${measure.trim()}`;
}

export const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Nutrient numbers of NUT_DATA / NUTR_DEF and the key each fills (unit already matches). */
export const NUTRIENT_NUMBERS: Readonly<Record<string, keyof Nutrients>> = {
  '204': 'fat', '606': 'satFat', '605': 'transFat', '601': 'cholesterol', '307': 'sodium', '205': 'totalCarbs',
  '291': 'fiber', '269': 'sugar', '203': 'protein', '318': 'vitaminA', '401': 'vitaminC', '301': 'calcium',
  '303': 'iron', '646': 'polyUnsatFat', '645': 'monoUnsatFat', '221': 'alcohol', '306': 'potassium', '262': 'caffeine',
};
export const ENERGY_KCAL = '208';
/** n-3 fatty acids summed into omega3Fat: ALA, EPA, DPA, DHA (g per 100 g). */
export const OMEGA3_NUMBERS = ['851', '629', '631', '621'] as const;

/**
 * Completes a food's nutrients from source values: energy kJ from kcal, omega-3 in mg from
 * the n-3 acids in g, netCarbs = totalCarbs − fiber when both are known (never below 0).
 */
export function finishNutrients(values: Nutrients, kcal: number | undefined, omega3Grams: number | undefined): Nutrients {
  const out: Nutrients = { ...values };
  if (kcal !== undefined) out.energy = round(kcal * KJ_PER_KCAL, 3);
  if (omega3Grams !== undefined) out.omega3Fat = round(omega3Grams * 1000, 3);
  if (out.totalCarbs !== undefined && out.fiber !== undefined) out.netCarbs = round(Math.max(0, out.totalCarbs - out.fiber), 3);
  return out;
}
