import { readFileSync } from 'node:fs';
import { fixturePath } from './paths.js';

/** Ids of the hand-written fixture catalogue (test/fixtures/catalog.json). */
export const u = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const IDS = {
  acme: u(101), zebra: u(102), eclair: u(103), bush: u(201),
  dairy: u(301), cheese: u(302), hard: u(303), soft: u(304), milk: u(305), bakery: u(306), snacks: u(401), nuts: u(402),
  organic: u(501), lowFat: u(502), glutenFree: u(503),
  sharp: u(601), mild: u(602), brie: u(603), skim: u(604), creme: u(605), macadamia: u(606), spread: u(607),
  genericUs: '72e34d90-9563-4433-8ec4-c51801d06330',
  genericAu: '4a497106-5e8c-4729-9451-667c2b57514b',
} as const;

export interface FixtureCatalog {
  brands: { id: string; name: string; region: string }[];
  categories: { id: string; name: string; region: string; parent?: string }[];
  tags: { id: string; name: string }[];
  foods: Record<string, unknown>[];
}

export function fixtureCatalog(): FixtureCatalog {
  return JSON.parse(readFileSync(fixturePath('catalog.json'), 'utf8')) as FixtureCatalog;
}

/** The catalogue as a .jsonl file's text: brands, categories, tags, foods, then `extra` lines. */
export function catalogJsonl(catalog: FixtureCatalog, extra: readonly string[] = []): string {
  const lines = [
    ...catalog.brands.map((b) => JSON.stringify({ kind: 'brand', ...b })),
    ...catalog.categories.map((c) => JSON.stringify({ kind: 'category', ...c })),
    ...catalog.tags.map((t) => JSON.stringify({ kind: 'tag', ...t })),
    ...catalog.foods.map((f) => JSON.stringify({ kind: 'food', ...f })),
    ...extra,
  ];
  return lines.join('\n') + '\n';
}
