/**
 * Where an import's CPU goes, thread by thread (Linux: /proc). Runs the real
 * `foodlookup import catalog FILE` into a fresh database file and samples every thread's CPU
 * time every 250 ms. Prints, per window (`--window`, 5 s), the share of a core taken by the
 * writer's thread (the process's main thread: SQLite), the import workers together (reading,
 * checking, preparing rows; two for a .jsonl file) and every other thread together (V8's GC
 * helpers, SQLite's sorter threads, the search data's build threads), then the totals of the
 * record phase (while the workers live) and of what follows (indexes, checks, search data,
 * commit). A thread that has ended keeps the time it was last seen with: a sorter's or a build
 * thread's time counts though it ends within a window, and so do the import's last moments,
 * after the last whole window.
 * With --database-url it imports (--replace) into that PostgreSQL database instead, which it
 * empties first, and samples the import's server process too (`server`: COPY, index builds,
 * checks; it must run on this machine).
 *
 *   node dist/bench/import-threads.js --file bench/.cache/catalog-1000000.jsonl [--window 5]
 *   node dist/bench/import-threads.js --file … --database-url postgres://postgres@127.0.0.1:5432/import_threads
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withClient } from '../src/store/postgres/connection.js';
import { IMPORT_LOCK } from '../src/store/postgres/schema.js';
import { ensureDatabase } from './postgres.js';

const { values } = parseArgs({ options: { file: { type: 'string' }, window: { type: 'string', default: '5' }, 'database-url': { type: 'string' } } });
if (!values.file) throw new Error('--file PATH is required (a catalog .jsonl, e.g. bench/.cache/catalog-1000000.jsonl)');
const WINDOW = Math.max(1, Number(values.window));
const CLI = join(dirname(fileURLToPath(import.meta.url)), '../src/cli/main.js');
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU ticks (user + system) of each live thread of a process. */
function threadTicks(pid: number): Map<number, number> {
  const ticks = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return ticks;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ticks;
}

/** CPU ticks of a process (user + system), or undefined once it is gone. */
function processTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

const url = values['database-url'];
if (url !== undefined) {
  // A fresh database: the import writes every food, as the first import of a catalogue does.
  await ensureDatabase(url);
  await withClient(url, async (client) => {
    const schemas = await client.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'foodlookup_cat_%'");
    for (const { name } of schemas.rows) await client.query(`DROP SCHEMA ${name} CASCADE`);
    await client.query('DROP TABLE IF EXISTS foodlookup_meta');
  });
}
const dir = mkdtempSync(join(tmpdir(), 'foodlookup-import-threads-'));
const target = url === undefined ? ['--db', join(dir, 'catalog.db')] : ['--replace', '--database-url', url];
const child = spawn(process.execPath, [CLI, 'import', 'catalog', values.file, ...target], { stdio: ['ignore', 'inherit', 'inherit'] });
const pid = child.pid!;
/** The import's server process and its CPU ticks when last seen. */
const server = { pid: undefined as number | undefined, ticks: 0, counted: 0 };
const findServer = async (): Promise<void> => {
  if (url === undefined || server.pid !== undefined) return;
  await withClient(url, async (client) => {
    // The import's transaction holds IMPORT_LOCK (a bigint key: its high and low 32 bits).
    const row = await client.query<{ pid: number }>(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND classid = $1 AND objid = $2 AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [Math.floor(IMPORT_LOCK / 2 ** 32), IMPORT_LOCK % 2 ** 32]);
    server.pid = row.rows[0]?.pid;
  }).catch(() => undefined);
};
const ended = new Promise<number | null>((resolve) => child.once('close', resolve));
/** Every thread's CPU ticks when last seen (a thread that has ended keeps its last), and the threads alive then. */
const seen = new Map<number, number>();
let alive: ReadonlySet<number> = new Set();
const look = (): number => {
  const live = threadTicks(pid);
  for (const [tid, ticks] of live) seen.set(tid, ticks);
  alive = new Set(live.keys());
  return live.size;
};
const started = performance.now();

type Phase = { writer: number; worker: number; others: number; server: number; seconds: number };
const phases: Record<'records' | 'after', Phase> = {
  records: { writer: 0, worker: 0, others: 0, server: 0, seconds: 0 },
  after: { writer: 0, worker: 0, others: 0, server: 0, seconds: 0 },
};
let last = new Map<number, number>();
/** The import workers (one, or FOODLOOKUP_IMPORT_READERS sharing a .jsonl file). */
let workers: ReadonlySet<number> | undefined;
let workerGone = false;
let windowStart = performance.now();
let open = true;
void ended.then(() => (open = false));

const pct = (ticks: number, seconds: number): string => `${Math.round((100 * ticks) / TICKS / seconds).toString().padStart(3)} %`;
process.stdout.write(`thread CPU of \`foodlookup import catalog\` (% of one core; writer = main thread, worker = the import workers together), every ${WINDOW} s\n`);
for (let live = 1; live > 0;) {
  // Both processes are looked at often: their last ticks before they exit are the import's.
  for (let waited = 0; waited < WINDOW * 1000 && live > 0; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    await findServer();
    if (server.pid !== undefined) server.ticks = processTicks(server.pid) ?? server.ticks;
    live = open ? look() : 0;
  }
  const now = new Map(seen);
  const seconds = (performance.now() - windowStart) / 1000;
  windowStart = performance.now();
  const delta = { writer: 0, worker: 0, others: 0, server: server.ticks - server.counted };
  server.counted = server.ticks;
  // The workers are the threads but the main one busy for a third of a core or more, found in
  // the first window they show in (V8's helper threads and SQLite's sorters take less).
  if (workers === undefined) {
    const busy = [...now].filter(([tid, ticks]) => tid !== pid && ticks - (last.get(tid) ?? 0) > (TICKS * seconds) / 3).map(([tid]) => tid);
    if (busy.length > 0) workers = new Set(busy);
  }
  for (const [tid, ticks] of now) {
    const d = ticks - (last.get(tid) ?? 0);
    if (tid === pid) delta.writer += d;
    else if (workers?.has(tid) === true) delta.worker += d;
    else delta.others += d;
  }
  if (workers !== undefined && [...workers].every((tid) => last.has(tid) && !alive.has(tid))) workerGone = true;
  const phase = phases[workerGone ? 'after' : 'records'];
  phase.writer += delta.writer;
  phase.worker += delta.worker;
  phase.others += delta.others;
  phase.server += delta.server;
  phase.seconds += seconds;
  last = now;
  const t = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  const serverShare = url === undefined ? '' : `  server ${pct(delta.server, seconds)}`;
  process.stdout.write(`${t} s  writer ${pct(delta.writer, seconds)}  worker ${pct(delta.worker, seconds)}  others ${pct(delta.others, seconds)}${serverShare}` +
    `  (${((delta.writer + delta.worker + delta.others + delta.server) / TICKS / seconds).toFixed(2)} cores)${workerGone ? '  after the records' : ''}\n`);
}
const code = await ended;
rmSync(dir, { recursive: true, force: true });
if (code !== 0) throw new Error(`the import failed (exit ${code})`);
for (const [name, p] of Object.entries(phases)) {
  if (p.seconds === 0) continue;
  const cpu = (ticks: number): string => `${(ticks / TICKS).toFixed(1)} CPU-s (${pct(ticks, p.seconds).trim()})`;
  const serverCpu = url === undefined ? '' : `, server ${cpu(p.server)}`;
  process.stdout.write(`${name === 'records' ? 'record phase' : 'after it'}: ~${p.seconds.toFixed(0)} s; writer ${cpu(p.writer)}, worker ${cpu(p.worker)}, ` +
    `others ${cpu(p.others)}${serverCpu}; ${((p.writer + p.worker + p.others + p.server) / TICKS / p.seconds).toFixed(2)} cores on average\n`);
}
process.stdout.write(`the windows' boundaries fall within ${WINDOW} s of the phases' own\n`);
