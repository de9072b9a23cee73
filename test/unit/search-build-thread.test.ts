import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, before, test } from 'node:test';
import { MemoryBlobs } from '../../src/search/blobs.js';
import { buildSearchData, type SearchFoodRow, type SearchSource } from '../../src/search/build.js';
import { SearchBuildThread } from '../../src/search/build-thread.js';

/**
 * The search data built on its own thread (build-thread.ts): the store's thread sends the rows,
 * the build thread and its top lists' helper send the blobs back. It must write exactly what the
 * build on the store's thread writes, and fail as that one does.
 */

const HEADS = ['apples', 'pears', 'cheese', 'chicken', 'chocolate', 'milk', 'bread', 'rice', 'beans', 'tomatoes'];
const MODIFIERS = ['raw', 'cooked', 'cheddar', 'canned', 'whole', 'dried', 'frozen', 'sliced', 'chopped', 'plain'];

/** `n` foods, enough that groups and prefixes pass a small top list bound; rids with gaps. */
function catalogue(n = 600): SearchSource {
  const foods: SearchFoodRow[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${HEADS[i % HEADS.length]}, ${MODIFIERS[(i * 7) % MODIFIERS.length]}, ${MODIFIERS[(i * 3 + 1) % MODIFIERS.length]} ${i % 13} w${i % 997}`;
    foods.push({
      rid: i * 2 + 1, name, classification: i % 4 === 0 ? 'fruit' : '', otherNames: i % 5 === 0 ? 'snack \n treat' : '', description: i % 3 === 0 ? 'chopped fine' : '',
      region: i % 2 ? 'us' : 'au', brand: i % 3, category: 1 + (i % 4), servings: i % 6,
    });
  }
  return {
    ridLimit: 2 * n + 100,
    foods: () => foods,
    nameOrder: () => [...foods].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.rid - b.rid)).map((f) => f.rid),
    brands: () => [{ rid: 0, name: 'average all brands', generic: true }, { rid: 1, name: 'acme', generic: false }, { rid: 2, name: 'chez bob', generic: false }],
    tagFoods: () => [{ tag: 1, foods: foods.filter((f) => f.rid % 3 === 0).map((f) => f.rid) }, { tag: 2, foods: [1, 3, 5] }],
  };
}

/**
 * Runs a build on its thread over `source`, sending its parts as a store does; returns the blobs
 * in the order they were put and how many threads wrote the top lists. The store's thread waits
 * (finish) before it sends the name order, so that the build takes a helper for its top lists.
 */
async function onThread(source: SearchSource, rows: Iterable<SearchFoodRow> = source.foods()): Promise<{ blobs: Map<string, Uint8Array>; helperLists: number }> {
  const blobs = new Map<string, Uint8Array>();
  const thread = new SearchBuildThread(source, { prefixUnions: true }, (name, bytes) => {
    assert.ok(!blobs.has('meta'), `${name} came after meta`);
    blobs.set(name, bytes);
  });
  await thread.foods(rows);
  thread.tagFoods(source.tagFoods());
  const finished = thread.finish();
  thread.nameOrder(source.nameOrder());
  return { blobs, helperLists: (await finished).helperLists };
}

const saved = { ...process.env };
before(() => {
  // Small bounds, so that top lists and the type-ahead unions are written, and shared by two threads.
  process.env['FOODLOOKUP_RANKED_TOP_MIN'] = '20';
  process.env['FOODLOOKUP_WIDE_SLOT'] = '2000';
});
after(() => {
  for (const key of ['FOODLOOKUP_RANKED_TOP_MIN', 'FOODLOOKUP_WIDE_SLOT']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

test('the build on its own thread writes every blob the build on the calling thread writes, byte for byte, meta last', async () => {
  // ~2,000 top lists, ~0.6 s of them: the helper, started with them, has time to take some.
  const source = catalogue(60_000);
  const here = new MemoryBlobs();
  const names: string[] = [];
  buildSearchData(source, { put: (name, bytes) => (names.push(name), here.put(name, bytes)) }, { prefixUnions: true });
  const { blobs: there, helperLists } = await onThread(source);
  if (availableParallelism() >= 2) assert.ok(helperLists > 0, 'the helper wrote top lists too');
  assert.deepEqual([...there.keys()].sort(), [...names].sort());
  assert.equal([...there.keys()].at(-1), 'meta');
  for (const name of names) assert.deepEqual(Buffer.from(there.get(name)!), Buffer.from(here.get(name)!), name);
  // The bounds took effect: top lists of groups and prefixes, and unions, are among them.
  for (const kind of ['top/g', 'top/p', 'union/a', 'union/p']) assert.ok(names.some((n) => n.startsWith(kind)), kind);
});

test('a build that fails on its thread rejects with the build\'s own message', async () => {
  const source = catalogue();
  const rows = [...source.foods(), { ...[...source.foods()][0]!, rid: 5000 }];
  await assert.rejects(onThread(source, rows), /food rid 5000 is beyond the catalogue's 1300/);
});

test('a build stopped before its name order ends: finish rejects, and no blob that comes after the stop is put', async () => {
  // Large enough that the build posts its postings in a burst before it asks for the name order.
  const source = catalogue(60_000);
  let put = 0;
  let stopping: Promise<void> | undefined;
  const thread = new SearchBuildThread(source, {}, () => {
    put++;
    // Stopped at its first blob: the rest of the burst is already on its way to this thread.
    stopping ??= thread.stop();
  });
  await thread.foods(source.foods());
  while (stopping === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
  await stopping;
  await assert.rejects(thread.finish(), /stopped/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(put, 1);
});

test('a build that fails while the foods are still being sent rejects the sending, which does not wait for it forever', async () => {
  const source = catalogue();
  const model = [...source.foods()][0]!;
  // Enough rows that the sender must wait for the build to take them (FOODS_AHEAD messages).
  function* rows(): Iterable<SearchFoodRow> {
    yield { ...model, rid: 5000 };
    for (let i = 0; i < 100_000; i++) yield { ...model, rid: i % 1300 };
  }
  const thread = new SearchBuildThread(source, {}, () => undefined);
  await assert.rejects(thread.foods(rows()), /food rid 5000 is beyond the catalogue's 1300/);
  await assert.rejects(thread.finish(), /food rid 5000/);
});
