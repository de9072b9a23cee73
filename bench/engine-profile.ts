/**
 * The search engine alone (src/search), in process, on the bench's fts request sets: where the
 * engine's time goes without HTTP, the store's row reads or serialisation in the way, and
 * which queries are the slowest. Each query is answered once and timed (page 1, 20 foods, as
 * the API's default); postings are loaded on first use as a server loads them.
 *
 *   node dist/bench/engine-profile.js --db bench/.cache/catalog-1000000.db [--only REGEX] [--requests N] [--slowest K] [--warm] [--cpu] [--best-of K] [--query 'cheddar ch*' --repeat 200]
 *
 * --cpu times each query in the process's CPU time (user + system, all threads, 1 µs steps)
 * instead of the wall clock: on a shared machine, time spent waiting for a core is not counted.
 * --best-of K answers each query K times in a row and keeps the least time: the engine's
 * steady work, without the first loads and with fewer of a shared machine's bursts.
 * --warm runs the server's warm-up first: `SearchEngine.warm` (the commonest lists and the bound
 * orders `serve` takes in turns once it listens), then the searches of its own a server answers
 * after them (store/warm-searches.ts), through the engine alone. Without those the
 * engine's loops run in the interpreter for the first queries: a scenario's slowest queries and
 * its p99 were then mostly V8 compiling them (`and pre*` 10-28 ms there, ~2 ms once compiled).
 * For repeatable comparisons, run one scenario under
 * `valgrind --tool=callgrind --callgrind-out-file=/dev/null` and compare instruction counts.
 */
import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { SearchEngine, type StoreLookups } from '../src/search/engine.js';
import { Synonyms } from '../src/search/synonyms.js';
import { loadSearchIndex } from '../src/store/sqlite/search-store.js';
import { mapForReading, sampleFoodNames } from '../src/store/sqlite/store.js';
import { mapPages } from '../src/store/sqlite/page-map.js';
import type { FoodQuery } from '../src/store/catalog-store.js';
import { ownSearches, warmSearchCount } from '../src/store/warm-searches.js';
import { samples } from './scenarios.js';
import { clock } from './clock.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    only: { type: 'string' },
    requests: { type: 'string', default: '2000' },
    slowest: { type: 'string', default: '8' },
    warm: { type: 'boolean', default: false },
    query: { type: 'string' },
    repeat: { type: 'string', default: '100' },
    /** Times in CPU time of the process (user + system) rather than wall clock: on a machine shared with other work, waiting for a core does not count. */
    cpu: { type: 'boolean', default: false },
    /** Each query answered this many times in a row, its least time kept: the engine's work without the neighbours' bursts (and warm: no first loads). */
    'best-of': { type: 'string', default: '1' },
  },
});
if (!values.db) throw new Error('--db PATH is required (e.g. bench/.cache/catalog-1000000.db)');

const db = new Database(values.db, { readonly: true });
mapForReading(db); // as the store reads
await mapPages(db); // and as a server does once it listens
const loadStarted = performance.now();
const engine = new SearchEngine(loadSearchIndex(db), Synonyms.load(['default']));
process.stdout.write(`loaded in ${(performance.now() - loadStarted).toFixed(0)} ms\n`);
const refuse = (): never => {
  throw new Error('an unfiltered fts search asks the store nothing');
};
const lookups: StoreLookups = {
  brandRid: refuse, tagRid: refuse, categoriesUnder: refuse, classificationFoods: refuse, upcFoods: refuse, firstPlaceFrom: refuse,
  limits: { brand: 0, category: 0, tag: 0 },
};
const search = (query: string): number => {
  const q: FoodQuery = { match: { type: 'fts', query }, order: { field: 'rank', direction: 'asc' }, limit: 20, offset: 0 };
  const answer = engine.foods(q, lookups);
  return answer !== undefined && 'total' in answer ? answer.total : -1;
};

if (values.warm) {
  const warmStarted = performance.now();
  engine.warm();
  // The searches a server asks itself once it listens, of the names the SQLite store samples.
  const own = await ownSearches((count) => Promise.resolve(sampleFoodNames(db, count)), warmSearchCount());
  for (const query of own) search(query);
  process.stdout.write(`warmed in ${(performance.now() - warmStarted).toFixed(0)} ms (${own.length} searches of its own)\n`);
}

const now = clock(values.cpu);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const memory = (): string => {
  const m = process.memoryUsage();
  return `rss ${mib(m.rss)}, heap used ${mib(m.heapUsed)}, array buffers ${mib(m.arrayBuffers)}, peak rss ${mib(process.resourceUsage().maxRSS * 1024)}`;
};

if (values.query !== undefined) {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < Number(values.repeat); i++) {
    const started = now();
    total = search(values.query);
    times.push(now() - started);
  }
  const sorted = times.slice().sort((a, b) => a - b);
  process.stdout.write(`${values.query}: ${total} matches; first ${times[0]!.toFixed(2)} ms, then p50 ${sorted[sorted.length >> 1]!.toFixed(3)} ms, min ${sorted[0]!.toFixed(3)} ms\n`);
} else {
  const s = samples(values.db);
  const sets: [string, string[]][] = [
    ['2 fts, cold', s.coldQueries],
    ['11 type-ahead alone', s.typeAhead],
    ['12 type-ahead after words', s.typeAheadAfterWords],
    ['13 a word corrected', s.typos],
  ];
  const bestOf = Number(values['best-of']);
  const only = values.only === undefined ? undefined : new RegExp(values.only);
  const quantile = (sorted: Float64Array, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const ms = (x: number): string => x.toFixed(x < 10 ? 2 : 0).padStart(7);
  process.stdout.write(values.cpu ? 'CPU time of the process per query\n' : 'wall clock per query\n');
  process.stdout.write(`${'scenario (engine, ms)'.padEnd(28)} ${'n'.padStart(5)} ${'mean'.padStart(7)} ${'p50'.padStart(7)} ${'p90'.padStart(7)} ${'p99'.padStart(7)} ${'max'.padStart(7)}\n`);
  for (const [name, queries] of sets) {
    if (only !== undefined && !only.test(name)) continue;
    const count = Math.min(Number(values.requests), queries.length);
    const times = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      let least = Infinity;
      for (let r = 0; r < bestOf; r++) {
        const started = now();
        search(queries[i]!);
        least = Math.min(least, now() - started);
      }
      times[i] = least;
    }
    const sorted = times.slice().sort();
    const mean = sorted.reduce((a, b) => a + b, 0) / count;
    process.stdout.write(`${name.padEnd(28)} ${String(count).padStart(5)} ${ms(mean)} ${ms(quantile(sorted, 0.5))} ${ms(quantile(sorted, 0.9))} ${ms(quantile(sorted, 0.99))} ${ms(sorted[count - 1]!)}\n`);
    const order = Array.from(times.keys()).sort((a, b) => times[b]! - times[a]!).slice(0, Number(values.slowest));
    for (const i of order) process.stdout.write(`    ${times[i]!.toFixed(2).padStart(8)} ms  ${queries[i]}\n`);
  }
  process.stdout.write(`memory: ${memory()}\n`);
}
db.close();
