/** The 22 nutrient keys of service.md 2.5, in the order the spec lists them. */
export const NUTRIENT_KEYS = [
  'energy', 'fat', 'satFat', 'transFat', 'cholesterol', 'sodium', 'totalCarbs', 'fiber', 'sugar',
  'protein', 'vitaminA', 'vitaminC', 'calcium', 'iron', 'polyUnsatFat', 'monoUnsatFat', 'omega3Fat',
  'netCarbs', 'sugarAlcohol', 'alcohol', 'potassium', 'caffeine',
] as const;

export type NutrientKey = (typeof NUTRIENT_KEYS)[number];

/** Units of each key: mass and volume are always grams and millilitres. */
export const NUTRIENT_UNITS: Readonly<Record<NutrientKey, 'kJ' | 'g' | 'mg' | 'IU'>> = {
  energy: 'kJ', fat: 'g', satFat: 'g', transFat: 'g', cholesterol: 'mg', sodium: 'mg',
  totalCarbs: 'g', fiber: 'g', sugar: 'g', protein: 'g', vitaminA: 'IU', vitaminC: 'mg',
  calcium: 'mg', iron: 'mg', polyUnsatFat: 'g', monoUnsatFat: 'g', omega3Fat: 'mg',
  netCarbs: 'g', sugarAlcohol: 'g', alcohol: 'g', potassium: 'mg', caffeine: 'mg',
};

const KEY_SET: ReadonlySet<string> = new Set(NUTRIENT_KEYS);

export function isNutrientKey(key: string): key is NutrientKey {
  return KEY_SET.has(key);
}

export type Nutrients = Partial<Record<NutrientKey, number>>;

/** Kilojoules per kilocalorie (thermochemical calorie). */
export const KJ_PER_KCAL = 4.184;
