/**
 * Two builds' search engines in one process, answering the bench's queries in alternating
 * blocks, each query timed in CPU time: a change to src/search measured against the build
 * before it on the same machine in the same minutes, which over HTTP the machine's drift hides
 * (its speed moved by 30 % within an hour here). The pages and totals of both are compared.
 *
 *   git worktree add ../before HEAD~1 && (cd ../before && ln -s ../main/node_modules && npx tsc -p tsconfig.json)
 *   node dist/bench/engine-ab.js --before ../before/dist --db bench/.cache/catalog-1000000.db [--scenario 12] [--requests 2000] [--block 50] [--rounds 2]
 *
 * Round 1 answers each query the first time (first loads of lists included, as a fresh
 * server's); later rounds ask them again (steady state). `--before-db` gives the earlier build
 * its own database (e.g. one of an older schema). `--env-a`/`--env-b` (JSON objects) set
 * environment variables before each build's block, to compare two settings of one build
 * (`--before dist`). Each build warms up as `serve` does, before and once it listens.
 */
import Database from 'better-sqlite3';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { FoodQuery } from '../src/store/catalog-store.js';
import { mapPages } from '../src/store/sqlite/page-map.js';
import { samples } from './scenarios.js';
import { clock } from './clock.js';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: 'dist' },
    db: { type: 'string' },
    'before-db': { type: 'string' },
    scenario: { type: 'string', default: '12' },
    requests: { type: 'string', default: '2000' },
    block: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
    'env-a': { type: 'string', default: '{}' },
    'env-b': { type: 'string', default: '{}' },
  },
});
if (!values.before || !values.db) throw new Error('--before DIST and --db PATH are required');

/** What is used of a build's engine: its answer to a foods query. */
interface Engine {
  foods(q: FoodQuery, lookups: object): { rids?: readonly number[]; ranked?: readonly number[]; total?: number } | undefined;
}

async function load(dist: string, db: string): Promise<Engine> {
  const root = resolve(dist);
  const engineModule = await import(`${root}/src/search/engine.js`) as { SearchEngine: new (index: unknown, synonyms: unknown) => Engine & { warm(): void } };
  const synonymsModule = await import(`${root}/src/search/synonyms.js`) as { Synonyms: { load(names: string[]): unknown } };
  const storeModule = await import(`${root}/src/store/sqlite/search-store.js`) as { loadSearchIndex(db: Database.Database): unknown };
  const sqliteModule = await import(`${root}/src/store/sqlite/store.js`) as { mapForReading(db: Database.Database): void };
  const connection = new Database(db, { readonly: true });
  sqliteModule.mapForReading(connection);
  await mapPages(connection); // as a server does once it listens, in both builds alike
  const engine = new engineModule.SearchEngine(storeModule.loadSearchIndex(connection), synonymsModule.Synonyms.load(['default']));
  engine.warm();
  return engine;
}

const sets = samples(values.db);
const queries = ({ '2': sets.coldQueries, '11': sets.typeAhead, '12': sets.typeAheadAfterWords, '13': sets.typos } as Record<string, string[]>)[values.scenario];
if (queries === undefined) throw new Error('--scenario: 2, 11, 12 or 13 (the bench scenarios of searches)');
const engines = [await load(values.before, values['before-db'] ?? values.db), await load(values.after, values.db)] as const;
const environments = [JSON.parse(values['env-a']) as Record<string, string>, JSON.parse(values['env-b']) as Record<string, string>];
const n = Math.min(Number(values.requests), queries.length);
const block = Number(values.block);
const now = clock(true);
const query = (text: string): FoodQuery => ({ match: { type: 'fts', query: text }, order: { field: 'rank', direction: 'asc' }, limit: 20, offset: 0 });
const stats = (times: Float64Array): string => {
  const sorted = times.slice().sort();
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return `mean ${mean.toFixed(3)}  p50 ${at(0.5).toFixed(3)}  p90 ${at(0.9).toFixed(2)}  p99 ${at(0.99).toFixed(2)}  max ${sorted[sorted.length - 1]!.toFixed(1)} ms`;
};

for (let round = 1; round <= Number(values.rounds); round++) {
  const times = [new Float64Array(n), new Float64Array(n)];
  const answers: string[][] = [[], []];
  for (let start = 0; start < n; start += block) {
    // Each build goes first in every other block: neither always finds the CPU's caches warm.
    for (const e of (start / block) % 2 === 0 ? [0, 1] : [1, 0]) {
      Object.assign(process.env, environments[e]);
      for (let i = start; i < Math.min(n, start + block); i++) {
        const started = now();
        const answer = engines[e]!.foods(query(queries[i]!), {});
        times[e]![i] = now() - started;
        answers[e]![i] = `${answer?.total ?? answer?.ranked?.length}:${(answer?.rids ?? answer?.ranked ?? []).join(',')}`;
      }
    }
  }
  const differ = answers[0]!.filter((a, i) => a !== answers[1]![i]).length;
  process.stdout.write(`round ${round}, scenario ${values.scenario}, ${n} queries, CPU time a query; answers that differ: ${differ}\n`);
  process.stdout.write(`  before  ${stats(times[0]!)}\n  after   ${stats(times[1]!)}\n`);
}
