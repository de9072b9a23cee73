/** A seeded random catalogue for property tests: a few hundred foods, every shape of filter. */
import { u } from './fixture-catalog.js';

export { seededRandom as random } from '../../bench/random.js';
import { seededRandom as random } from '../../bench/random.js';

export interface RBrand { id: string; name: string; region: 'au' | 'us' }
export interface RCategory { id: string; name: string; region: 'au' | 'us'; parent?: string }
export interface RTag { id: string; name: string }
export interface RFood {
  foodId: string; region: 'au' | 'us'; brand: string; category: string; tags: string[]; name: string;
  classification: string; servings: { name: string; scale: number; type: 'mass' }[];
}
export interface RCatalog { brands: RBrand[]; categories: RCategory[]; tags: RTag[]; foods: RFood[] }

const WORDS = ['apple', 'Äpfel', 'cheese', 'cheddar', 'milk', 'bread', 'rye', 'oat', 'crème', 'brûlée', 'raw', 'cooked', 'salt', 'zebra', 'Nut'];
const CLASSES = ['Cheese, hard', 'Cheese, soft', 'Milk', 'Bread, rye', 'bread, rye', 'Fruit', 'Crème, fraîche'];

export function randomCatalog(seed: number, foods = 300): RCatalog {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  let n = 20000;
  const id = (): string => u(n++);
  const brands: RBrand[] = [];
  for (let i = 0; i < 12; i++) brands.push({ id: id(), name: `${pick(WORDS)} ${pick(['Co', 'Farms', 'Ltd'])}`, region: i % 3 === 0 ? 'au' : 'us' });
  brands.push({ id: '72e34d90-9563-4433-8ec4-c51801d06330', name: 'Average All Brands', region: 'us' });
  const categories: RCategory[] = [];
  for (const region of ['au', 'us'] as const) {
    for (let t = 0; t < 3; t++) {
      const top = { id: id(), name: `${pick(WORDS)} top`, region };
      categories.push(top);
      for (let m = 0; m < 2; m++) {
        const mid = { id: id(), name: `${pick(WORDS)} mid`, region, parent: top.id };
        categories.push(mid);
        for (let l = 0; l < 2; l++) categories.push({ id: id(), name: `${pick(WORDS)} leaf`, region, parent: mid.id });
      }
    }
  }
  const parents = new Set(categories.map((c) => c.parent).filter((p) => p !== undefined));
  const leaves = categories.filter((c) => !parents.has(c.id));
  const tags: RTag[] = Array.from({ length: 8 }, (_, i) => ({ id: id(), name: `${pick(WORDS)} tag ${i}` }));
  const list: RFood[] = [];
  for (let i = 0; i < foods; i++) {
    const region = rnd() < 0.3 ? 'au' : 'us';
    const brand = pick(brands.filter((b) => b.region === region));
    const category = pick(leaves.filter((c) => c.region === region));
    const foodTags = [...new Set(Array.from({ length: Math.floor(rnd() * 4) }, () => pick(tags).id))];
    const name = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(WORDS)).join(' ');
    list.push({
      foodId: id(), region, brand: brand.id, category: category.id, tags: foodTags, name, classification: pick(CLASSES),
      servings: [{ name: '100 g', scale: 1, type: 'mass' }],
    });
  }
  return { brands: brands.filter((b) => b.name !== 'Average All Brands'), categories, tags, foods: list };
}

/** A food with every member the catalogue format has (for the stores' differential test). */
export interface RichFood extends Omit<RFood, 'servings'> {
  otherNames?: string[];
  description?: string;
  note?: string;
  mass?: number;
  volume?: number;
  servings: { name: string; scale: number; type: 'mass' | 'volume' | 'serving' }[];
  upcs?: Record<string, { servingIndex: number; quantity: number }>;
  nutrients?: Record<string, number>;
}
export interface RichCatalog extends Omit<RCatalog, 'foods'> { foods: RichFood[] }

const NUTRIENTS = ['energy', 'fat', 'satFat', 'protein', 'sodium', 'totalCarbs', 'sugar', 'fiber', 'calcium', 'caffeine'];

/** A 12-digit UPC-A with its check digit: the service also finds it by its EAN-13 and GTIN-14 forms. */
export function upcA(n: number): string {
  const body = String(n).padStart(11, '0');
  const sum = [...body].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return body + String((10 - (sum % 10)) % 10);
}

/**
 * randomCatalog's catalogue with every optional member of a food (other names, descriptions,
 * notes, mass, volume, several servings, barcodes, nutrients), numbers with fractions, and
 * names shared by several foods, so that a comparison of two stores reaches every column.
 */
export function richCatalog(seed: number, foods = 1500): RichCatalog {
  const base = randomCatalog(seed, foods);
  const rnd = random(seed + 7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  let barcode = 1000;
  const rich = base.foods.map((food, i): RichFood => {
    const servings: RichFood['servings'] = [{ name: '100 g', scale: 1, type: 'mass' }];
    if (rnd() < 0.5) servings.push({ name: `1 ${pick(WORDS)}`, scale: Math.round(rnd() * 300) / 100 + 0.01, type: pick(['mass', 'volume', 'serving'] as const) });
    const upcs: RichFood['upcs'] = {};
    if (rnd() < 0.4) upcs[upcA(barcode++)] = { servingIndex: servings.length - 1, quantity: 1 + Math.floor(rnd() * 12) };
    if (rnd() < 0.1) upcs[`X${barcode++}`] = { servingIndex: 0, quantity: 1 };
    const nutrients: Record<string, number> = {};
    for (const key of NUTRIENTS) if (rnd() < 0.7) nutrients[key] = Math.round(rnd() * 200_000) / 100;
    return {
      ...food,
      // Every tenth food shares its name with the one before: order among equal names counts.
      name: i % 10 === 9 ? base.foods[i - 1]!.name : food.name,
      servings,
      ...(rnd() < 0.5 ? { otherNames: [`${pick(WORDS)} ${pick(WORDS)}`] } : {}),
      ...(rnd() < 0.5 ? { description: `${pick(WORDS)}, ${pick(WORDS)} "quoted" & <marked>` } : {}),
      ...(rnd() < 0.2 ? { note: `note ${i}` } : {}),
      ...(rnd() < 0.5 ? { mass: Math.round(rnd() * 50_000) / 100 } : {}),
      ...(rnd() < 0.2 ? { volume: Math.round(rnd() * 1000) } : {}),
      ...(Object.keys(upcs).length > 0 ? { upcs } : {}),
      ...(Object.keys(nutrients).length > 0 ? { nutrients } : {}),
    };
  });
  return { ...base, foods: rich };
}
