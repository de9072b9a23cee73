/**
 * One scenario's requests answered in process by the SQLite and the PostgreSQL store side by
 * side, in alternating blocks, so that both see the same machine: the serving process's CPU
 * time per request, PostgreSQL's (its backends serving this process, from /proc), and the wall
 * time. On a machine shared with other work, the CPU figures and the same-run ratio are the
 * ones to compare; a page's rows are what the two stores do differently.
 *
 *   node dist/bench/store-profile.js --db bench/.cache/catalog-1000000.db --database-url postgres://…/foodlookup_bench_1000000 \
 *     [--only 'fts, cold'] [--requests 2000] [--block 100] [--warm 1000] [--row-copy-dir DIR]
 *
 * Requests go through the real app with Fastify's inject, one at a time (as c=1). --warm N
 * answers N other requests of the scenario first (from its end), as the bench's untimed
 * warm-up does.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openServingStore } from '../src/server.js';
import { openAuthenticator } from '../src/tokens/open.js';
import { AUTH, TOKEN, samples, scenarios, zipfOrder } from './scenarios.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    'database-url': { type: 'string' },
    only: { type: 'string', default: 'fts, cold' },
    requests: { type: 'string', default: '2000' },
    block: { type: 'string', default: '100' },
    warm: { type: 'string', default: '1000' },
    /**
     * Another build's dist/ (e.g. main's): its PostgreSQL store is served too, in the same blocks,
     * for a same-run comparison. Biased against it: its modules are a second copy in this
     * process (their own JIT state, a second app): an identical copy of this build's dist/
     * measured process CPU 1,823 against 1,416 µs a request and wall p50 1,400 against 1,312 µs
     * (fts cold). Compare builds by their ratios to SQLite from runs of their own instead.
     */
    'other-dist': { type: 'string' },
    /** A folder: a PostgreSQL store that copies the rows there (--row-copy-dir) is served too, once its copy is ready. */
    'row-copy-dir': { type: 'string' },
  },
});
if (!values.db || !values['database-url']) throw new Error('--db PATH and --database-url URL are required');

type App = Awaited<ReturnType<typeof buildApp>>;
interface Served { readonly name: string; readonly app: App; readonly backends: () => number[]; close(): Promise<void> }

interface Build {
  readonly buildApp: typeof buildApp;
  readonly loadConfig: typeof loadConfig;
  readonly openServingStore: typeof openServingStore;
  readonly openAuthenticator: typeof openAuthenticator;
}
const thisBuild: Build = { buildApp, loadConfig, openServingStore, openAuthenticator };

/** The same modules of another build (a dist/ folder). */
async function otherBuild(dist: string): Promise<Build> {
  const from = async <T>(path: string): Promise<T> => (await import(pathToFileURL(resolve(dist, path)).href)) as T;
  return {
    ...(await from<Pick<Build, 'buildApp'>>('src/app.js')),
    ...(await from<Pick<Build, 'loadConfig'>>('src/config.js')),
    ...(await from<Pick<Build, 'openServingStore'>>('src/server.js')),
    ...(await from<Pick<Build, 'openAuthenticator'>>('src/tokens/open.js')),
  };
}

async function serve(name: string, flags: Record<string, string>, build: Build = thisBuild): Promise<Served> {
  const config = build.loadConfig({ ...flags, port: '0' }, { FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'silent' });
  const store = await build.openServingStore(config);
  const auth = await build.openAuthenticator(config, store);
  const app = await build.buildApp(config, { store, auth });
  const pool = (store as { connection?: pg.Pool }).connection;
  // pg's clients know their backend's process id (BackendKeyData).
  const backends = (): number[] => ((pool as unknown as { _clients?: { processID: number | null }[] } | undefined)?._clients ?? [])
    .map((c) => c.processID).filter((pid): pid is number => pid !== null);
  if (flags['row-copy-dir'] !== undefined) {
    // Timed once its pages come from the copy.
    while ((await store.health()).localRows !== 'ready') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, app, backends, close: async () => { await app.close(); await auth.close(); await store.close(); } };
}

/** A process's CPU time in ms (user + system), 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

const stores = [
  await serve('sqlite', { db: values.db }),
  await serve('postgres', { 'database-url': values['database-url'] }),
  ...(values['row-copy-dir'] ? [await serve('pg+copy', { 'database-url': values['database-url'], 'row-copy-dir': values['row-copy-dir'] })] : []),
  ...(values['other-dist'] ? [await serve(`postgres (${values['other-dist']})`, { 'database-url': values['database-url'] }, await otherBuild(values['other-dist']))] : []),
];
const s = samples(values.db);
const scenario = scenarios(s, zipfOrder(s.zipfQueries.length), 1_000_000).find((sc) => new RegExp(values.only).test(sc.name));
if (scenario === undefined || scenario.method) throw new Error(`no GET scenario matches ${values.only}`);
const paths = scenario.paths;
// Another build's PostgreSQL store answers the requests that follow this build's (as many, from
// the same list): asked the same ones right after, it read rows this build had just read, still
// in PostgreSQL's buffers and the CPU's caches (its PostgreSQL CPU 187 → 127 µs a request, wall
// p50 −90 µs, in whichever order the two builds were served).
const lists = values['other-dist'] ? 2 : 1;
const n = Math.min(Number(values.requests), Math.floor((paths.length - Number(values.warm)) / lists));
/** The list index of store k's i-th timed request: SQLite and this build's PostgreSQL store ask the same. */
const pathOf = (k: number, i: number): string => paths[(values['other-dist'] && k === stores.length - 1 ? n : 0) + i]!;
const block = Number(values.block);

const request = async (app: App, path: string): Promise<void> => {
  const response = await app.inject({ method: 'GET', url: path, headers: AUTH });
  // As a server's loop turns between requests (the store's read batches are setImmediate work).
  await new Promise(setImmediate);
  if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body.slice(0, 200)}`);
};
// The PostgreSQL store reads every food's classification once a version is loaded (seconds of
// its CPU and PostgreSQL's): done before anything is timed.
// Loading a version on a loaded machine can pass the statement bound (503, Retry-After 5 s): asked again then.
for (const { app } of stores) {
  for (let tries = 1; ; tries++) {
    const response = await app.inject({ method: 'GET', url: '/v1/foods?grouping=classification&limit=1', headers: AUTH });
    if (response.statusCode === 200) break;
    if (response.statusCode !== 503 || tries === 5) throw new Error(`the first request: ${response.statusCode} ${response.body.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}
for (const { app } of stores) for (let i = 0; i < Number(values.warm); i++) await request(app, paths[paths.length - 1 - i]!);

const totals = stores.map(() => ({ cpu: 0, backend: 0, wall: [] as number[] }));
for (let from = 0; from < n; from += block) {
  for (const [k, served] of stores.entries()) {
    const pids = served.backends();
    const backendBefore = pids.map(processCpuMs);
    const cpuBefore = process.cpuUsage();
    for (let i = from; i < Math.min(n, from + block); i++) {
      const started = performance.now();
      await request(served.app, pathOf(k, i));
      totals[k]!.wall.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    totals[k]!.cpu += (cpu.user + cpu.system) / 1000;
    const after = served.backends();
    // Backends that came or went within the block count from 0.
    totals[k]!.backend += after.reduce((sum, pid) => sum + processCpuMs(pid) - (backendBefore[pids.indexOf(pid)] ?? 0), 0);
  }
}
const us = (ms: number): string => `${Math.round(ms * 1000).toLocaleString('en')} µs`;
process.stdout.write(`${scenario.name}: ${n} requests per store, blocks of ${block} alternating, after ${values.warm} others\n`);
for (const [k, served] of stores.entries()) {
  const t = totals[k]!;
  const wall = t.wall.sort((a, b) => a - b);
  process.stdout.write(`${served.name.padEnd(9)} process CPU ${us(t.cpu / n)}/req, PostgreSQL CPU ${us(t.backend / n)}/req, ` +
    `wall p50 ${us(wall[Math.floor(n / 2)]!)} mean ${us(wall.reduce((a, b) => a + b, 0) / n)}\n`);
}
const sum = (xs: readonly number[]): number => xs.reduce((x, y) => x + y, 0);
for (const [k, served] of stores.entries()) {
  if (k === 0) continue;
  const [a, b] = [totals[0]!, totals[k]!];
  process.stdout.write(`${served.name} ÷ sqlite: process CPU ${(b.cpu / a.cpu).toFixed(2)}, process + PostgreSQL CPU ${((b.cpu + b.backend) / a.cpu).toFixed(2)}, ` +
    `wall mean ${(sum(b.wall) / sum(a.wall)).toFixed(2)}, wall p50 ${(b.wall[Math.floor(n / 2)]! / a.wall[Math.floor(n / 2)]!).toFixed(2)}\n`);
}
for (const served of stores) await served.close();
