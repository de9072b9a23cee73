/**
 * A little food knowledge for ranking (ranking.ts, static part): words of a food's name that say
 * how plain it is. When a query names no such word, a person logging `apple` means the apple as
 * it comes (`Apples, raw`), before a dried, powdered or canned one, a meatless imitation, a
 * baby food or a restaurant dish. When the query does name one (`dried apple`), every food it
 * matches has the word, and the mark weighs the same on all of them.
 *
 * These are general words of food composition tables (USDA SR, FoodData Central, AUSNUT), not
 * tuned to particular searches. Each mark is a bit of a food's `marks` (build.ts).
 */

export const MARK = {
  /** As it comes: raw, fresh, plain. */
  plain: 1,
  /** Processed into another form: dried, powdered, a mix, a concentrate. */
  processed: 2,
  /** Not the thing itself: an imitation, a substitute, meatless, flavoured. */
  imitation: 4,
  /** Baby food. */
  baby: 8,
  /** A restaurant or fast-food dish. */
  restaurant: 16,
  /** Preserved: canned, frozen, pickled. */
  preserved: 32,
  /** Sold under a brand other than the generic one. */
  branded: 64,
  /** A part of an animal few people mean by its name: offal, by-products, trimmed fat, roe. */
  part: 128,
} as const;

const WORD_MARKS: ReadonlyMap<string, number> = new Map([
  ...['raw', 'fresh', 'plain'].map((w) => [w, MARK.plain] as const),
  ...['dried', 'dehydrated', 'powder', 'powdered', 'mix', 'concentrate', 'concentrated', 'freeze', 'instant', 'flakes'].map((w) => [w, MARK.processed] as const),
  ...['imitation', 'substitute', 'substitutes', 'meatless', 'analog', 'flavor', 'flavored', 'flavour', 'flavoured', 'simulated'].map((w) => [w, MARK.imitation] as const),
  ...['babyfood', 'baby', 'infant', 'toddler', 'junior', 'strained'].map((w) => [w, MARK.baby] as const),
  ...['restaurant', 'fast'].map((w) => [w, MARK.restaurant] as const),
  ...['canned', 'frozen', 'pickled', 'bottled'].map((w) => [w, MARK.preserved] as const),
  // Offal named alone (`Chicken, liver, …`). Heart, kidney and ears are left out: other foods'
  // names have them (heart-shaped cereals, kidney beans, cloud ears).
  ...['liver', 'livers', 'giblets', 'gizzard', 'gizzards', 'tripe', 'feet', 'brain', 'brains', 'tongue', 'spleen', 'lung', 'lungs',
    'thymus', 'pancreas', 'chitterlings', 'roe', 'backfat', 'fatback'].map((w) => [w, MARK.part] as const),
]);

/** The marks of a food from its name's words. */
export function nameMarks(words: Iterable<string>): number {
  let marks = 0;
  let separable = false;
  let fat = false;
  let lean = false;
  let variety = false;
  let meats = false;
  for (const word of words) {
    marks |= WORD_MARKS.get(word) ?? 0;
    separable ||= word === 'separable';
    fat ||= word === 'fat';
    lean ||= word === 'lean';
    variety ||= word === 'variety';
    meats ||= word === 'meats';
  }
  // Trimmed fat alone (`separable fat`, not a cut's `separable lean and fat`); USDA's `variety
  // meats and by-products` (not a pineapple's `extra sweet variety`).
  if ((separable && fat && !lean) || (variety && meats)) marks |= MARK.part;
  return marks;
}
