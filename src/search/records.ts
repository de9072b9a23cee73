import { MemoryBlobs } from './blobs.js';
import { buildSearchData } from './build.js';
import { SearchEngine } from './engine.js';
import { SearchIndex } from './search-index.js';
import type { Synonyms } from './synonyms.js';

/**
 * fts on brands, categories and tags (contract C3: "on their name", with the same word forms,
 * typos and synonyms as foods, each resource with its own vocabulary). Their names are few next
 * to the foods (tens of thousands at most), so their index is built in memory from the names
 * the store hands over when a catalogue version is first searched: the same builder, with every
 * record as a food that has only a name. A store pages over the matching rids in SQL.
 */
export function recordsEngine(records: Iterable<{ readonly rid: number; readonly name: string }>, synonyms: Synonyms): SearchEngine {
  const list = [...records];
  const blobs = new MemoryBlobs();
  buildSearchData({
    ridLimit: list.reduce((max, r) => Math.max(max, r.rid + 1), 1),
    foods: () => list.map((r) => ({
      rid: r.rid, name: r.name, classification: '', otherNames: '', description: '', region: '', brand: 0, category: 0, servings: 0,
    })),
    nameOrder: () => list.map((r) => r.rid),
    brands: () => [],
    tagFoods: () => [],
  }, blobs, { topMin: Infinity });
  return new SearchEngine(SearchIndex.load(blobs)!, synonyms);
}
