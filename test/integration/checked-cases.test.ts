// The checked cases of service.md 4.5, word for word: both tables, all 13 rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importInto } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { u } from '../helpers/fixture-catalog.js';

const TAG = { A: u(9001), B: u(9002), C: u(9003), D: u(9004) } as const;
type TagName = keyof typeof TAG;
const CAT = { T1: u(9101), T2: u(9102), L1: u(9111), L2: u(9112), L3: u(9113), L4: u(9114) } as const;
const BRAND = { Brand1: u(9201), Brand2: u(9202), Brand3: u(9203), Other: u(9204) } as const;

function food(n: number, brand: string, category: string, tags: TagName[]): Record<string, unknown> {
  return {
    foodId: u(9300 + n), region: 'us', brand, category, tags: tags.map((t) => TAG[t]), name: `Food${n}`,
    classification: `Class${n}`, servings: [{ name: '100 g', scale: 1, type: 'mass' }],
  };
}

const categoriesCatalog = {
  brands: [{ id: BRAND.Other, name: 'Other', region: 'us' }],
  categories: [
    { id: CAT.T1, name: 'T1', region: 'us' }, { id: CAT.T2, name: 'T2', region: 'us' },
    { id: CAT.L1, name: 'L1', region: 'us', parent: CAT.T1 }, { id: CAT.L2, name: 'L2', region: 'us', parent: CAT.T1 },
    { id: CAT.L3, name: 'L3', region: 'us', parent: CAT.T2 }, { id: CAT.L4, name: 'L4', region: 'us', parent: CAT.T2 },
  ],
  tags: (Object.keys(TAG) as TagName[]).map((name) => ({ id: TAG[name], name })),
  foods: [
    food(1, BRAND.Other, CAT.L1, ['A']), food(2, BRAND.Other, CAT.L1, ['B']),
    food(3, BRAND.Other, CAT.L2, ['B']), food(4, BRAND.Other, CAT.L2, ['C']),
    food(5, BRAND.Other, CAT.L3, ['A', 'B']), food(6, BRAND.Other, CAT.L3, ['C', 'D']),
    food(7, BRAND.Other, CAT.L4, ['B', 'C']), food(8, BRAND.Other, CAT.L4, ['D']),
  ],
};

const brandsCatalog = {
  brands: [
    { id: BRAND.Brand1, name: 'Brand1', region: 'us' }, { id: BRAND.Brand2, name: 'Brand2', region: 'us' },
    { id: BRAND.Brand3, name: 'Brand3', region: 'us' },
  ],
  categories: [{ id: CAT.L1, name: 'L1', region: 'us' }],
  tags: (['A', 'B', 'C'] as TagName[]).map((name) => ({ id: TAG[name], name })),
  foods: [
    food(1, BRAND.Brand1, CAT.L1, ['A']), food(2, BRAND.Brand1, CAT.L1, ['B']), food(3, BRAND.Brand1, CAT.L1, ['C']),
    food(4, BRAND.Brand2, CAT.L1, ['A', 'B']), food(5, BRAND.Brand2, CAT.L1, ['A']), food(6, BRAND.Brand2, CAT.L1, ['B']),
    food(7, BRAND.Brand3, CAT.L1, ['B', 'C']),
  ],
};

let byCategory: TestServer;
let byBrand: TestServer;
let cleanup: () => void;

before(async () => {
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  const load = async (name: string, catalog: unknown): Promise<TestServer> => {
    const file = join(tmp.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(catalog));
    await importInto(join(tmp.dir, `${name}.db`), 'catalog', [file]);
    return startTestServer(join(tmp.dir, `${name}.db`));
  };
  byCategory = await load('categories', categoriesCatalog);
  byBrand = await load('brands', brandsCatalog);
});

after(async () => {
  await byCategory.close();
  await byBrand.close();
  cleanup();
});

/** `!T2,L2` → `!<id of T2>,<id of L2>` */
function filter(text: string, ids: Readonly<Record<string, string>>): string {
  const inverted = text.startsWith('!');
  const names = (inverted ? text.slice(1) : text).split(',');
  return (inverted ? '!' : '') + names.map((n) => ids[n]).join(',');
}

async function tagNames(server: TestServer, query: string): Promise<string> {
  const res = await server.get(`/v1/tags?${query}&fields=name`);
  assert.equal(res.status, 200, res.text);
  return (res.body as { tags: { name: string }[] }).tags.map((t) => t.name).join(', ');
}

describe('service.md 4.5: tags by categories filter', () => {
  const rows: [string, string][] = [
    ['T1', 'A, B, C'],
    ['L1', 'A, B'],
    ['T1,L4', 'A, B, C, D'],
    ['!L1', 'A, B, C, D'],
    ['!L1,L3', 'B, C, D'],
    ['!T2,L2', 'A, B'],
  ];
  for (const [categories, expected] of rows) {
    test(`categories=${categories} returns ${expected}`, async () => {
      assert.equal(await tagNames(byCategory, `categories=${filter(categories, CAT)}`), expected);
    });
  }
});

describe('service.md 4.5: tags by brands filter', () => {
  const rows: [string, string][] = [
    ['Brand1', 'A, B, C'],
    ['Brand2', 'A, B'],
    ['Brand3', 'B, C'],
    ['Brand2,Brand3', 'A, B, C'],
    ['!Brand1', 'A, B, C'],
    ['!Brand1,Brand2', 'B, C'],
    ['!Brand1,Brand3', 'A, B'],
  ];
  for (const [brands, expected] of rows) {
    test(`brands=${brands} returns ${expected}`, async () => {
      assert.equal(await tagNames(byBrand, `brands=${filter(brands, BRAND)}`), expected);
    });
  }
});
