/**
 * `npm run bench`: the real server on a generated catalogue, driven from a separate process on
 * 127.0.0.1, every figure next to a bare Fastify hello-world measured in the same run.
 *
 *   npm run bench -- [--foods N] [--seconds S] [--workers 1,2] [--store sqlite,postgres] [--out bench/RESULTS.md]
 *
 * `--store postgres` (or `sqlite,postgres`, both in one run, ratios to the same hello-world)
 * also imports the catalogue through `foodlookup import catalog --database-url` into the
 * database $BENCH_DATABASE_URL names (default: database `foodlookup_bench_<N>` on the
 * PostgreSQL scripts/test-services.sh made sure of), timed once per size, serves it with
 * `serve --database-url`, and measures a replica's switch to a new version after an import.
 *
 * `--cli OTHER/dist/src/cli/main.js --db PATH` imports (when PATH is missing, timed) and serves
 * with another build, for a before/after table; the requests still come from this build's
 * catalogue database, so both builds answer the same ones.
 *
 * The catalogue is generated (bench/generate, seeded) and imported through the real
 * `foodlookup import catalog` once per size, cached under bench/.cache/. Server and load
 * generator are pinned to different cores with taskset when it is available.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { SearchIndex } from '../src/search/search-index.js';
import { SqliteSearchBlobs } from '../src/store/sqlite/search-store.js';
import { generate } from './generate.js';
import { AUTH, TOKEN, samples, scenarioRequests, scenarios, zipfOrder } from './scenarios.js';
import type { LoadResult, LoadSpec } from './load-spec.js';
import { CLI, ROOT, backgroundDone, drain, hasTaskset, pin, readiness, readWhole, runLoad, serverProcesses, startProcess, statusKiB, stop } from './harness.js';
import type { MemorySample } from './memory-probe.js';
import { benchDatabaseUrl, catalogFoods, checkpoint, databaseBytes, ensureDatabase, readCatalogue } from './postgres.js';

const { values } = parseArgs({
  options: {
    foods: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '5' },
    workers: { type: 'string', default: '1,2' },
    out: { type: 'string' },
    /** Only the scenarios whose name matches this regular expression (e.g. '^1 |^2 '). */
    only: { type: 'string' },
    /** The stores to serve from, in this order: sqlite, postgres. */
    store: { type: 'string', default: 'sqlite' },
    /** PostgreSQL replicas copy the rows to their disk (--row-copy-dir, the deployment docs/deploy.md advises): on, or off. */
    'row-copy': { type: 'string', default: 'on' },
    /**
     * Another build's CLI (`…/dist/src/cli/main.js`) to import and serve SQLite with, for a
     * before/after table: the requests are still made from this build's catalogue database, so
     * both builds answer the same ones.
     */
    cli: { type: 'string' },
    /** With --cli: that build's database (imported there by it, and timed, when missing). */
    db: { type: 'string' },
  },
});
// A partial run must not overwrite the committed table.
const OUT = values.out ?? join(ROOT, values.only ? 'bench/.cache/RESULTS-partial.md' : 'bench/RESULTS.md');
const FOODS = Number(values.foods);
const SECONDS = Number(values.seconds);
const WORKERS = values.workers.split(',').map(Number);
const STORES = values.store.split(',').map((x) => x.trim());
for (const store of STORES) if (store !== 'sqlite' && store !== 'postgres') throw new Error(`--store: sqlite or postgres, not '${store}'`);
if (values['row-copy'] !== 'on' && values['row-copy'] !== 'off') throw new Error(`--row-copy: on or off, not '${values['row-copy']}'`);
if ((values.cli === undefined) !== (values.db === undefined)) throw new Error('--cli and --db go together: another build and its own database');
if (values.cli !== undefined && (STORES.length !== 1 || STORES[0] !== 'sqlite')) throw new Error('--cli serves SQLite only');
/** The CLI that imports and serves the catalogue: this build's, or --cli's. */
const SERVER_CLI = values.cli ?? CLI;
/** Where PostgreSQL replicas copy the rows (none with --row-copy off). */
const ROW_COPY_DIR = values['row-copy'] === 'on' && STORES.includes('postgres') ? mkdtempSync(join(tmpdir(), 'bench-rows-')) : undefined;
function log(text: string): void {
  process.stderr.write(`${text}\n`);
}

/**
 * Memory of the largest server process, in MiB: peak resident (VmHWM: private memory, code,
 * the shared libraries' pages and those of a SQLite file read through its memory map) and peak private memory (RssAnon, sampled every 100 ms
 * while the load runs: the heap, buffers and SQLite's cache), over the whole run and per
 * scenario, with what a worker's peak was made of (bench/memory-probe.ts, loaded into the
 * serving processes through `probeEnv`).
 */
class MemoryWatch {
  private anonPeak = 0;
  private scenarioPeak = 0;
  private timer: NodeJS.Timeout | undefined;
  private pids: number[] = [];

  constructor(private readonly pid: number) {}

  /** Where the workers write their samples; set in the server's environment. */
  static readonly dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  static readonly probeEnv = {
    BENCH_MEMORY_DIR: MemoryWatch.dir,
    NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${pathToFileURL(join(ROOT, 'dist/bench/memory-probe.js')).href}`.trim(),
  };

  /** The processes are listed once (pgrep is a process of its own): workers are up when the server listens. */
  start(): void {
    this.pids = serverProcesses(this.pid);
    this.timer = setInterval(() => {
      for (const p of this.pids) this.scenarioPeak = Math.max(this.scenarioPeak, statusKiB(p, 'RssAnon') / 1024);
      this.anonPeak = Math.max(this.anonPeak, this.scenarioPeak);
    }, 100);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The workers (the primary only forwards signals, and SIGUSR2 would end it). */
  private get workers(): number[] {
    return this.pids.slice(1);
  }

  /** A scenario starts: its peaks are measured from now. */
  async beginScenario(): Promise<void> {
    await this.collect();
    this.scenarioPeak = 0;
  }

  /**
   * The scenario's peak private memory, and the sample its largest worker took at its own
   * peak: each worker writes it on SIGUSR2 and starts over.
   */
  async endScenario(): Promise<{ peak: number; sample: MemorySample | undefined }> {
    const peak = this.scenarioPeak;
    const samples = await this.collect();
    return { peak, sample: samples.sort((a, b) => b.rssAnon - a.rssAnon)[0] };
  }

  private async collect(): Promise<MemorySample[]> {
    const files = this.workers.map((p) => join(MemoryWatch.dir, `${p}.json`));
    for (const f of files) rmSync(f, { force: true });
    for (const p of this.workers) {
      try {
        process.kill(p, 'SIGUSR2');
      } catch {
        // gone: its figures with it
      }
    }
    const samples: MemorySample[] = [];
    for (const f of files) {
      for (let i = 0; i < 1000 && !existsSync(f); i++) await new Promise((r) => setTimeout(r, 10));
      try {
        samples.push(JSON.parse(readFileSync(f, 'utf8')) as MemorySample);
      } catch {
        // not written (a worker without the probe): the /proc figures still stand
      }
    }
    return samples;
  }

  get peakPrivate(): number {
    return this.anonPeak;
  }

  get peakResident(): number {
    return Math.max(...this.pids.map((p) => statusKiB(p, 'VmHWM') / 1024));
  }
}

/** A worker's peak as the report's memory table gives it, in MiB. */
function memoryRow(name: string, store: string, workers: number, peak: number, s: MemorySample | undefined): string {
  if (s === undefined) return `| ${name} | ${store} | ${workers} | ${peak.toFixed(0)} | | | | | | |`;
  const space = (n: string): number => s.spaces[n] ?? 0;
  const otherSpaces = s.heapTotal - space('old_space') - space('new_space') - space('large_object_space');
  const rest = s.rssAnon - s.heapTotal - s.arrayBuffers;
  const f = (x: number): string => x.toFixed(0);
  return `| ${name} | ${store} | ${workers} | ${f(peak)} | ${f(s.rssAnon)} | ${f(s.heapTotal)} (${f(s.heapUsed)} used) | ` +
    `${f(space('old_space'))} / ${f(space('new_space'))} / ${f(space('large_object_space'))} / ${f(otherSpaces)} | ${f(s.arrayBuffers)} | ${f(rest)} |`;
}

/** c=1 runs through bench/latency (one connection, each request timed in µs), others through autocannon. */
function load(url: string, connections: number, requests: Pick<LoadSpec, 'paths'> & Partial<LoadSpec>): Promise<LoadResult> {
  return runLoad({ url, connections, seconds: SECONDS, headers: AUTH, ...requests });
}

/** Writes a file's dirty pages to disk now. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function catalogue(): Promise<{ db: string; importFoodsPerSecond?: number; dbBytes: number }> {
  const cache = join(ROOT, 'bench/.cache');
  mkdirSync(cache, { recursive: true });
  const db = join(cache, `catalog-${FOODS}.db`);
  if (existsSync(db)) {
    if (searchDataCurrent(db)) return { db, dbBytes: statSync(db).size };
    // Served as it is, the server would rebuild its search data when it first opens the file
    // (schema.ts): a cold start of tens of seconds, and an import whose speed this run never timed.
    log(`${db}: its search data is of another format or ranking than this build's; importing again`);
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${db}${suffix}`, { force: true });
  }
  return imported(CLI, await generated(true), db);
}

/** Whether a cached database's search data is what this build writes (format and ranking version). */
function searchDataCurrent(db: string): boolean {
  let sql: Database.Database | undefined;
  try {
    sql = new Database(db, { readonly: true, fileMustExist: true });
    return SearchIndex.current(new SqliteSearchBlobs(sql));
  } catch {
    return false;
  } finally {
    sql?.close();
  }
}

/**
 * The generated catalogue's file (seed 42): made again for this build's own database (the
 * generator may have changed since a file was left in the cache), else made when missing.
 */
async function generated(again: boolean): Promise<string> {
  const file = join(ROOT, 'bench/.cache', `catalog-${FOODS}.jsonl`);
  if (!again && existsSync(file)) return file;
  log(`generating ${FOODS} foods…`);
  const out = createWriteStream(file);
  await generate({ foods: FOODS, seed: 42, out });
  await new Promise<void>((resolve) => out.end(resolve));
  // The generator's ~900 MB are still being written back to disk: synced first, so the timed
  // import does not share the disk and a core with that writeback.
  syncFile(file);
  return file;
}

/** `file` imported into a new SQLite database `db` through `cli`'s `import catalog`, timed. */
function imported(cli: string, file: string, db: string): { db: string; importFoodsPerSecond: number; dbBytes: number } {
  log(`importing through ${cli === CLI ? 'foodlookup' : cli} import catalog…`);
  const started = performance.now();
  const result = spawnSync(process.execPath, [cli, 'import', 'catalog', file, '--db', db], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error('import failed');
  const seconds = (performance.now() - started) / 1000;
  log(result.stdout.trim());
  // Untimed: the file written back now, not while the scenarios run.
  syncFile(db);
  return { db, importFoodsPerSecond: FOODS / seconds, dbBytes: statSync(db).size };
}

/** The database the server serves: the catalogue's, or --cli's own (imported by it when missing). */
async function servedCatalogue(own: Awaited<ReturnType<typeof catalogue>>): Promise<Awaited<ReturnType<typeof catalogue>>> {
  const db = values.db;
  if (db === undefined) return own;
  if (existsSync(db)) return { db, dbBytes: statSync(db).size };
  return imported(SERVER_CLI, await generated(false), db);
}

/**
 * The same generated catalogue in PostgreSQL, imported through the real CLI (timed) unless the
 * bench database already holds it.
 */
async function postgresCatalogue(): Promise<{ url: string; importFoodsPerSecond?: number; dbBytes: number }> {
  const url = benchDatabaseUrl(FOODS);
  await ensureDatabase(url);
  if ((await catalogFoods(url)) === FOODS) return { url, dbBytes: await databaseBytes(url) };
  const file = join(ROOT, 'bench/.cache', `catalog-${FOODS}.jsonl`);
  if (!existsSync(file)) throw new Error(`${file} is missing: delete bench/.cache/catalog-${FOODS}.db and run again to generate both`);
  log('importing into PostgreSQL through foodlookup import catalog --database-url…');
  const started = performance.now();
  const result = spawnSync(process.execPath, [CLI, 'import', 'catalog', file, '--replace', '--database-url', url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error('import into PostgreSQL failed');
  const seconds = (performance.now() - started) / 1000;
  log(result.stdout.trim());
  await checkpoint(url);
  return { url, importFoodsPerSecond: FOODS / seconds, dbBytes: await databaseBytes(url) };
}

/** Waits until the replica's copy of its version's rows is ready (no copy: at once); ms waited. */
async function rowsCopied(serverUrl: string, version?: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const state = await readiness(serverUrl);
    if (state.localRows === undefined || (state.localRows === 'ready' && (version === undefined || state.version === version))) break;
    if (performance.now() - started > 600_000) throw new Error(`the rows were not copied in 10 minutes: ${JSON.stringify(state)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - started;
}

/**
 * A replica's switch to a new catalogue version: one food of the catalogue changed and imported
 * (a new version of all the foods, built beside the current one), then the time from the
 * import's end until the serving replica's /readyz shows the new version, and its largest
 * process's private memory (RssAnon) before and at its peak meanwhile.
 */
async function measureSwitch(serverUrl: string, pid: number, databaseUrl: string): Promise<{ importSeconds: number; switchMs: number; copyMs?: number; steadyMiB: number; peakMiB: number }> {
  const file = join(ROOT, 'bench/.cache', `catalog-${FOODS}.jsonl`);
  // The file's head only (a million foods are ~900 MB): the first food comes after the brands and categories.
  const head = Buffer.alloc(32 << 20);
  const fd = openSync(file, 'r');
  const read = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const lines = head.subarray(0, read).toString('utf8').split('\n').slice(0, -1);
  const food = JSON.parse(lines.find((l) => l.includes('"kind":"food"'))!) as { name: string };
  const changed = join(ROOT, 'bench/.cache', 'switch.jsonl');
  writeFileSync(changed, `${JSON.stringify({ ...food, name: `${food.name} (switch ${Date.now()})` })}\n`);
  const version = async (): Promise<number> => (await readiness(serverUrl)).version;
  const before = await version();
  const pids = serverProcesses(pid);
  const privateMiB = (): number => Math.max(...pids.map((p) => statusKiB(p, 'RssAnon') / 1024));
  const steadyMiB = privateMiB();
  let peakMiB = steadyMiB;
  const timer = setInterval(() => (peakMiB = Math.max(peakMiB, privateMiB())), 50);
  const started = performance.now();
  const result = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [CLI, 'import', 'catalog', changed, '--database-url', databaseUrl], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', resolve);
  });
  const committed = performance.now();
  if (result !== 0) throw new Error('the switch import failed');
  while ((await version()) === before && performance.now() - committed < 120_000) await new Promise((r) => setTimeout(r, 20));
  const switchMs = performance.now() - committed;
  // The new version's rows are copied after the switch: its memory counts in the peak too.
  const copyMs = ROW_COPY_DIR === undefined ? undefined : await rowsCopied(serverUrl, before + 1);
  await new Promise((r) => setTimeout(r, 1000));
  clearInterval(timer);
  return { importSeconds: (committed - started) / 1000, switchMs, ...(copyMs !== undefined ? { copyMs } : {}), steadyMiB, peakMiB };
}

/** With `bodyBytes`, also c=64 on a route that sends a ready body of that size (`sized`). */
async function helloWorld(bodyBytes?: number): Promise<{ c1: LoadResult; c64: LoadResult; sized?: LoadResult }> {
  const [command, args] = pin('0', process.execPath, [join(ROOT, 'dist/bench/hello.js'), '0']);
  const hello = await startProcess(command, args);
  const figures = { c1: await load(hello.url, 1, { paths: ['/'] }), c64: await load(hello.url, 64, { paths: ['/'] }) };
  const sized = bodyBytes === undefined ? undefined : await load(hello.url, 64, { paths: [`/bytes/${bodyBytes}`] });
  await stop(hello.child);
  log(`hello-world: ${Math.round(figures.c1.rps)} req/s at c=1 (p50 ${fmtMs(figures.c1.p50)}), ${Math.round(figures.c64.rps)} at c=64` +
    (sized ? `; ${bodyBytes}-byte bodies ${Math.round(sized.rps)} at c=64` : ''));
  return sized ? { ...figures, sized } : figures;
}

/** The mean body of a list of requests as sent (each distinct one fetched once, weighted by its count). */
async function meanBodyBytes(url: string, paths: readonly string[]): Promise<number> {
  const counts = new Map<string, number>();
  for (const path of paths) counts.set(path, (counts.get(path) ?? 0) + 1);
  let bytes = 0;
  for (const [path, count] of counts) {
    const response = await fetch(`${url}${path}`, { headers: AUTH });
    if (!response.ok) throw new Error(`${path}: ${response.status} while measuring the mean answer`);
    bytes += (await response.arrayBuffer()).byteLength * count;
  }
  return Math.round(bytes / paths.length);
}

const fmtMs = (ms: number): string => (ms < 1 ? `${Math.round(ms * 1000)} µs` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);

async function main(): Promise<void> {
  const own = await catalogue();
  // The requests come from this build's database, whichever build serves.
  const s = samples(own.db);
  const cat = await servedCatalogue(own);
  log(`read the database once into the page cache in ${readWhole(cat.db).toFixed(1)} s`);
  const only = values.only === undefined ? undefined : new RegExp(values.only);
  const list = scenarios(s, zipfOrder(s.zipfQueries.length), FOODS).filter((sc) => only === undefined || only.test(sc.name));

  const first = await helloWorld();

  const rows: { name: string; store: string; workers: number; c1: LoadResult; c64: LoadResult; bad: number; paths: number }[] = [];
  const summary: string[] = [];
  const memoryRows: string[] = [];
  const zipf = list.find((sc2) => sc2.name.startsWith('3 '));
  let zipfBytes: number | undefined;
  const pgCat = STORES.includes('postgres') ? await postgresCatalogue() : undefined;
  for (const store of STORES) for (const workers of WORKERS) {
    const storeArgs = store === 'postgres'
      ? ['--database-url', pgCat!.url, ...(ROW_COPY_DIR !== undefined ? ['--row-copy-dir', ROW_COPY_DIR] : [])]
      : ['--db', cat.db];
    const [sc, sa] = pin(workers === 1 ? '0' : '0,1', process.execPath, [SERVER_CLI, 'serve', ...storeArgs, '--port', '0', '--workers', String(workers)]);
    const server = await startProcess(sc, sa, { FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'warn', ...MemoryWatch.probeEnv });
    summary.push(`| cold start, ${store}, ${workers} worker(s) | ${Math.round(server.ms)} ms |`);
    const doneMs = await backgroundDone(server.url, workers);
    log(`${store === 'sqlite' ? "the file's pages read ahead and " : ''}searches of its own answered ${(doneMs / 1000).toFixed(1)} s after it listened`);
    summary.push(`| ${store === 'sqlite' ? "SQLite: the file's pages read ahead (page-map.ts) and " : ''}searches of its own (warm-searches.ts) done after it listened, ${store} (${workers} worker(s)) | ${(doneMs / 1000).toFixed(1)} s |`);
    if (store === 'postgres' && ROW_COPY_DIR !== undefined) {
      const copyMs = await rowsCopied(server.url);
      log(`rows copied to the replica's disk ${(copyMs / 1000).toFixed(1)} s after it listened`);
      summary.push(`| PostgreSQL: replica's copy of the rows to its disk (--row-copy-dir) ready, after it listened (${workers} worker(s)) | ${(copyMs / 1000).toFixed(1)} s |`);
    }
    const memory = new MemoryWatch(server.child.pid!);
    memory.start();
    for (const sc2 of list) {
      // Again before every scenario: within a run this VM reclaims a third of the file's pages
      // in ~10 minutes (fincore), and a cold query's ~20 random page reads then take ~18 µs
      // each instead of ~4, so later scenarios measured how long ago the file was read.
      readWhole(cat.db);
      // And PostgreSQL's catalogue likewise, or its scenarios read from disk what SQLite's found in memory.
      if (store === 'postgres') await readCatalogue(pgCat!.url);
      await drain(server.url);
      await memory.beginScenario();
      // Untimed: the scenario's pages into the OS page cache, which this VM empties of idle pages.
      await load(server.url, 8, { ...scenarioRequests(sc2, 'warm-up'), seconds: 1 });
      await drain(server.url);
      const c1 = await load(server.url, 1, scenarioRequests(sc2, 'c1'));
      await drain(server.url);
      const c64 = await load(server.url, 64, scenarioRequests(sc2, 'c64'));
      const bad = c1.errors + c1.non2xx + c64.errors + c64.non2xx;
      const used = await memory.endScenario();
      memoryRows.push(memoryRow(sc2.name, store, workers, used.peak, used.sample));
      rows.push({ name: sc2.name, store, workers, c1, c64, bad, paths: sc2.bodies?.length ?? sc2.paths.length });
      log(`${sc2.name}, ${store}, ${workers} worker(s): c=1 ${Math.round(c1.rps)} req/s p50 ${fmtMs(c1.p50)} p99 ${fmtMs(c1.p99)}; ` +
        `c=64 ${Math.round(c64.rps)} req/s p99 ${fmtMs(c64.p99)} max ${fmtMs(c64.max)}; ${bad} bad; ` +
        `private ${used.peak.toFixed(0)} MiB (peak so far ${memory.peakPrivate.toFixed(0)} MiB), resident ${memory.peakResident.toFixed(0)} MiB`);
    }
    if (zipf && zipfBytes === undefined) zipfBytes = await meanBodyBytes(server.url, zipf.paths);
    memory.stop();
    summary.push(`| peak private memory (RssAnon), ${store}, ${workers} worker(s), largest process | ${memory.peakPrivate.toFixed(0)} MiB |`);
    summary.push(`| peak resident (VmHWM${store === 'sqlite' ? ": with the database file's pages read through its memory map, shared" : ''}), ${store}, ${workers} worker(s), largest process | ${memory.peakResident.toFixed(0)} MiB |`);
    const sw = store === 'postgres' && workers === WORKERS[0]
      ? await measureSwitch(server.url, server.child.pid!, pgCat!.url).catch((error: unknown) => {
        // The server is still stopped below, and the scenarios' figures are still written.
        log(`switch not measured: ${error instanceof Error ? error.message : String(error)}`);
        summary.push(`| PostgreSQL: replica's switch to a new version | not measured: ${error instanceof Error ? error.message : String(error)} |`);
        return undefined;
      })
      : undefined;
    if (sw) {
      log(`switch: import of one changed food ${sw.importSeconds.toFixed(1)} s, replica switched ${Math.round(sw.switchMs)} ms after it; private memory ${sw.steadyMiB.toFixed(0)} → peak ${sw.peakMiB.toFixed(0)} MiB`);
      summary.push(`| PostgreSQL: import of one changed food into the ${FOODS.toLocaleString('en')}-food catalogue (a new version of all of it) | ${sw.importSeconds.toFixed(1)} s |`);
      summary.push(`| PostgreSQL: replica's switch to the new version after the import's commit (${workers} worker(s)) | ${Math.round(sw.switchMs)} ms |`);
      if (sw.copyMs !== undefined) summary.push(`| PostgreSQL: the new version's rows copied to the replica's disk, after the switch | ${(sw.copyMs / 1000).toFixed(1)} s |`);
      summary.push(`| PostgreSQL: replica's private memory (largest process) steady → peak during the switch | ${sw.steadyMiB.toFixed(0)} → ${sw.peakMiB.toFixed(0)} MiB (${(sw.peakMiB / sw.steadyMiB).toFixed(2)}×) |`);
    }
    await stop(server.child);
  }
  // The machine's speed drifts: the hello-world is measured again at the end, and the ratios
  // are to the mean of both (both are in the report).
  const last = await helloWorld(zipfBytes);
  const ceiling = {
    c1: { rps: (first.c1.rps + last.c1.rps) / 2 },
    c64: { rps: (first.c64.rps + last.c64.rps) / 2 },
  };
  const ratio = (rps: number, to: number): string => (rps / to).toFixed(3);
  if (last.sized && zipfBytes !== undefined) {
    const zipfRow = rows.find((r) => r.name === zipf?.name && r.workers === 1 && r.store === STORES[0]);
    summary.push(`| hello-world sending a ready ${zipfBytes.toLocaleString('en')}-byte body (the Zipf mix's mean answer), c=64 | ` +
      `${Math.round(last.sized.rps)} req/s (${ratio(last.sized.rps, ceiling.c64.rps)})` +
      (zipfRow ? `; the Zipf mix, 1 worker, reached ${ratio(zipfRow.c64.rps, last.sized.rps)} of it |` : ' |'));
  }
  const table = rows.map((r) => `| ${r.name} | ${r.store} | ${r.paths} | ${r.workers} | ${Math.round(r.c1.rps)} (${ratio(r.c1.rps, ceiling.c1.rps)}) | ${fmtMs(r.c1.p50)} | ${fmtMs(r.c1.p99)} | ` +
    `${Math.round(r.c64.rps)} (${ratio(r.c64.rps, ceiling.c64.rps)}) | ${fmtMs(r.c64.p50)} | ${fmtMs(r.c64.p99)} | ${fmtMs(r.c64.max)} | ${r.bad} |`);

  const report = `# Benchmark results

Generated by \`npm run bench -- --foods ${FOODS} --seconds ${SECONDS} --workers ${WORKERS.join(',')} --store ${STORES.join(',')}${values.only ? ` --only '${values.only}'` : ''}\` on ${new Date().toISOString().slice(0, 10)}.
Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.
${hasTaskset ? 'Server pinned to core 0 (1 worker) or cores 0–1 (2 workers), load generator (separate process) to core 1.' : 'taskset not available: nothing pinned.'}
The database file is read whole before the first server starts and again before every scenario (page cache warm, as on a server that has run a while: this VM reclaims idle file pages within minutes); with --store postgres, PostgreSQL's foods table and name index are read through the server before each of its scenarios too.
Each scenario runs ${SECONDS} s at 1 and at 64 connections, after an untimed second at 8 (its
requests from the end of its list, backwards: the OS page cache is warmed, the response cache
is not); the c=1 run starts at the list's start, the c=64 run halfway, and a run longer than
its list ("distinct requests") cycles and is then partly answered from the response cache.
At c=1 the load generator is bench/latency
(one kept-alive connection, each request timed in µs from its first byte written to its response's
last byte read); at c=64 it is autocannon (millisecond histogram: "0 µs" there means under 1 ms).
Ratios (in parentheses) are to the bare Fastify hello-world of the same run, measured before and
after the scenarios and averaged: c=1 ${Math.round(first.c1.rps)} and ${Math.round(last.c1.rps)} req/s (p50 ${fmtMs(first.c1.p50)} and ${fmtMs(last.c1.p50)}, p99 ${fmtMs(first.c1.p99)} and ${fmtMs(last.c1.p99)}),
c=64 ${Math.round(first.c64.rps)} and ${Math.round(last.c64.rps)} req/s.

${values.cli === undefined ? '' : `Served and imported by another build: ${values.cli} (--cli), its database ${values.db}.\n`}Catalogue: ${FOODS.toLocaleString('en')} generated foods (seed 42), database ${(cat.dbBytes / 2 ** 20).toFixed(0)} MiB${cat.importFoodsPerSecond ? `, imported at ${Math.round(cat.importFoodsPerSecond).toLocaleString('en')} foods/s` : ' (cached from an earlier run)'}.
${pgCat ? `PostgreSQL (${pgCat.url.replace(/\/\/[^@]*@/, '//')}): database ${(pgCat.dbBytes / 2 ** 20).toFixed(0)} MiB${pgCat.importFoodsPerSecond ? `, imported at ${Math.round(pgCat.importFoodsPerSecond).toLocaleString('en')} foods/s` : ' (imported by an earlier run)'}; the server and PostgreSQL share the machine.\n` : ''}
| scenario | store | distinct requests | workers | c=1 req/s (ratio) | c=1 p50 | c=1 p99 | c=64 req/s (ratio) | c=64 p50 | c=64 p99 | c=64 max | errors/non-2xx |
|---|---|---|---|---|---|---|---|---|---|---|---|
${table.join('\n')}

| figure | value |
|---|---|
${summary.join('\n')}

Private memory (RssAnon) of the largest serving process, in MiB: its peak during each scenario
(sampled every 100 ms from /proc, untimed warm-up included), and what the largest worker held
at its own peak (bench/memory-probe.ts): V8's heap as committed, by space (old, new: the young
generation's semi-spaces, large objects, the rest: code, maps, read-only), ArrayBuffers and
Buffers outside it (search data, postings, cached responses), and the rest of the private
memory (SQLite's page cache, Node's and the allocator's own, fragmentation).

| scenario | store | workers | peak | at the worker's peak | V8 heap | old / new / large / other | ArrayBuffers | rest |
|---|---|---|---|---|---|---|---|---|
${memoryRows.join('\n')}
`;
  writeFileSync(OUT, report);
  log(`written to ${OUT}`);
}

await main();
