/**
 * The category tree of the AUSNUT 2011-13 food classification, which AFCD uses too; pure rules
 * plus the once-only emitter. docs/importers/fsanz.md.
 */
import type { CatalogRecord, SourceRef } from '../../domain/records.js';
import type { Region } from '../../domain/regions.js';
import { deriveId, ID_NAMESPACES } from '../../domain/ids.js';
import { FirstSeen } from '../first-seen.js';

/** Major food groups of the AUSNUT 2011-13 classification (published by FSANZ). */
export const MAJOR_GROUPS: Readonly<Record<string, string>> = {
  '11': 'Non-alcoholic beverages', '12': 'Cereals and cereal products', '13': 'Cereal based products and dishes',
  '14': 'Fats and oils', '15': 'Fish and seafood products and dishes', '16': 'Fruit products and dishes',
  '17': 'Egg products and dishes', '18': 'Meat, poultry and game products and dishes', '19': 'Milk products and dishes',
  '20': 'Dairy and meat substitutes', '21': 'Soup', '22': 'Seed and nut products and dishes',
  '23': 'Savoury sauces and condiments', '24': 'Vegetable products and dishes', '25': 'Legume and pulse products and dishes',
  '26': 'Snack foods', '27': 'Sugar products and dishes', '28': 'Confectionery and cereal/nut/fruit/seed bars',
  '29': 'Alcoholic beverages', '30': 'Special dietary foods', '31': 'Miscellaneous', '32': 'Infant formulae and foods',
  '33': 'Reptiles, amphibia and insects', '34': 'Dietary supplements',
};

/** Code lengths that are tree levels: major group, sub-major group, minor group. */
const LEVELS = [2, 3, 5] as const;
const DEEPEST = 5;

export interface CategoryNode {
  /** The code, or `<code>-other` for the leaf of foods classified no deeper than that code. */
  readonly key: string;
  readonly name: string;
}

/**
 * A classification code (AUSNUT Survey ID: 8 digits, the first 5 its minor group; AFCD
 * Classification: 3 or 5 digits) → the categories from the top down; the last is the food's leaf.
 * Sub-major and minor group names are not in the files, so they are named by their code: names
 * depend on nothing but the code, so AUSNUT and AFCD imports share one tree and never rename it.
 * Minor groups are the deepest level, so they never get children; a food classified only to a
 * higher level goes to a leaf of its own under it, so no category ever holds foods and children.
 * Undefined for anything but 2–8 digits.
 */
export function categoryPath(code: string): CategoryNode[] | undefined {
  if (!/^[0-9]{2,8}$/.test(code)) return undefined;
  const path: CategoryNode[] = LEVELS.filter((n) => code.length >= n).map((n) => {
    const key = code.slice(0, n);
    return { key, name: (n === 2 ? MAJOR_GROUPS[key] : undefined) ?? `Group ${key}` };
  });
  if (code.length < DEEPEST) {
    const deepest = path[path.length - 1]!;
    path.push({ key: `${deepest.key}-other`, name: `${deepest.name}, not further classified` });
  }
  return path;
}

export function categoryId(region: Region, key: string): string {
  return deriveId(ID_NAMESPACES.fsanz, `category:${region}:${key}`);
}

/** Emits each category once, parents first, just before the first food that needs it. */
export class CategoryTree {
  private readonly emitted = new FirstSeen();

  constructor(private readonly region: Region) {}

  /** Yields the path's categories not emitted yet; returns the leaf's id. */
  *leaf(path: readonly CategoryNode[], source: SourceRef): Generator<CatalogRecord, string> {
    let parent: string | undefined;
    for (const node of path) {
      const id = categoryId(this.region, node.key);
      if (this.emitted.first(id)) {
        yield { kind: 'category', value: { id, name: node.name, region: this.region, ...(parent ? { parent } : {}) }, source };
      }
      parent = id;
    }
    if (parent === undefined) throw new Error('a category path has at least one node');
    return parent;
  }
}
