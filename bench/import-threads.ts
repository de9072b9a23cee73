/**
 * Where an import's CPU goes, thread by thread (Linux: /proc). Runs the real
 * `foodlookup import catalog FILE` into a fresh database file and samples every thread's CPU
 * time each second. Prints, per window, the share of a core taken by the writer's thread (the
 * process's main thread: SQLite), the import worker (reading, checking, preparing rows) and
 * every other thread together (V8's GC helpers, SQLite's sorter threads), then the totals of
 * the record phase (while the worker lives) and of what follows (indexes, checks, search data).
 *
 *   node dist/bench/import-threads.js --file bench/.cache/catalog-1000000.jsonl [--window 5]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { file: { type: 'string' }, window: { type: 'string', default: '5' } } });
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

const dir = mkdtempSync(join(tmpdir(), 'foodlookup-import-threads-'));
const child = spawn(process.execPath, [CLI, 'import', 'catalog', values.file, '--db', join(dir, 'catalog.db')], { stdio: ['ignore', 'inherit', 'inherit'] });
const pid = child.pid!;
const ended = new Promise<number | null>((resolve) => child.once('close', resolve));
const started = performance.now();

type Phase = { writer: number; worker: number; others: number; seconds: number };
const phases: Record<'records' | 'after', Phase> = {
  records: { writer: 0, worker: 0, others: 0, seconds: 0 },
  after: { writer: 0, worker: 0, others: 0, seconds: 0 },
};
let last = new Map<number, number>();
let worker: number | undefined;
let workerGone = false;
let windowStart = performance.now();
let open = true;
void ended.then(() => (open = false));

const pct = (ticks: number, seconds: number): string => `${Math.round((100 * ticks) / TICKS / seconds).toString().padStart(3)} %`;
process.stdout.write(`thread CPU of \`foodlookup import catalog\` (% of one core; writer = main thread), every ${WINDOW} s\n`);
while (open) {
  await new Promise((resolve) => setTimeout(resolve, WINDOW * 1000));
  const now = threadTicks(pid);
  if (now.size === 0) break;
  const seconds = (performance.now() - windowStart) / 1000;
  windowStart = performance.now();
  const delta = { writer: 0, worker: 0, others: 0 };
  for (const [tid, ticks] of now) {
    const d = ticks - (last.get(tid) ?? 0);
    if (tid === pid) delta.writer += d;
    else if (tid === worker) delta.worker += d;
    else delta.others += d;
  }
  // The worker is the busiest thread but the main one, found in the first window it shows in.
  if (worker === undefined) {
    const busiest = [...now].filter(([tid]) => tid !== pid).sort((a, b) => b[1] - a[1])[0];
    if (busiest && busiest[1] > TICKS * seconds * 0.5) {
      worker = busiest[0];
      delta.worker += now.get(worker)! - (last.get(worker) ?? 0);
      delta.others -= now.get(worker)! - (last.get(worker) ?? 0);
    }
  }
  if (worker !== undefined && last.has(worker) && !now.has(worker)) workerGone = true;
  const phase = phases[workerGone ? 'after' : 'records'];
  phase.writer += delta.writer;
  phase.worker += delta.worker;
  phase.others += delta.others;
  phase.seconds += seconds;
  last = now;
  const t = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stdout.write(`${t} s  writer ${pct(delta.writer, seconds)}  worker ${pct(delta.worker, seconds)}  others ${pct(delta.others, seconds)}` +
    `  (${((delta.writer + delta.worker + delta.others) / TICKS / seconds).toFixed(2)} cores)${workerGone ? '  after the records' : ''}\n`);
}
const code = await ended;
rmSync(dir, { recursive: true, force: true });
if (code !== 0) throw new Error(`the import failed (exit ${code})`);
for (const [name, p] of Object.entries(phases)) {
  if (p.seconds === 0) continue;
  const cpu = (ticks: number): string => `${(ticks / TICKS).toFixed(1)} CPU-s (${pct(ticks, p.seconds).trim()})`;
  process.stdout.write(`${name === 'records' ? 'record phase' : 'after it'}: ~${p.seconds.toFixed(0)} s; writer ${cpu(p.writer)}, worker ${cpu(p.worker)}, ` +
    `others ${cpu(p.others)}; ${((p.writer + p.worker + p.others) / TICKS / p.seconds).toFixed(2)} cores on average\n`);
}
process.stdout.write(`the windows' boundaries fall within ${WINDOW} s of the phases' own\n`);
