/**
 * Where the time of a scenario's requests at one connection goes, on the real server: the bench's
 * scenarios run as bench/run.ts runs them (each after an untimed warm-up at 8 connections, at 1
 * connection, then at 64), and the last one's c=1 requests split in the serving worker
 * (bench/request-split-hook.ts): wall time, the main thread's time on a core, the search
 * engine, lists loaded or made (the list cache's misses), page faults, the core taken by
 * another process or thread, garbage collections' pauses within it and since the previous
 * response (a collection run as a task between requests delays the next one unseen), and the
 * wait since the previous response with the main thread's time on a core in it: the wall time
 * plus that wait is what the load generator times, and its p99 is printed too.
 *
 *   node dist/bench/request-split.js [--db bench/.cache/catalog-1000000.db] [--only '^12 '] [--seconds 4] [--warm-seconds 1] [--slowest 12]
 *
 * `--only` picks the scenarios (all of them: `.`): the ones before the last set the state a
 * whole bench run leaves it in (compiled code, lists in the cache), e.g. `'^2 |^11 |^12 '`. It
 * prints each part's p50, p90 and p99 over the last one's c=1 run, the server's p99 with each
 * part taken out of every request (which part the tail is made of), and the slowest requests
 * with their parts. Figures are of one run on one machine: alternate runs to compare two builds.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { CLI, ROOT, backgroundDone, drain, pin, readWhole, runLoad, startProcess, stop } from './harness.js';
import type { RequestParts, RequestTrace } from './request-split-hook.js';
import { TOKEN, samples, scenarioRequests, scenarios, zipfOrder } from './scenarios.js';

/** A request the worker records between runs: the c=1 run's requests are between two. */
const MARK = '/request-split-mark';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: join(ROOT, 'bench/.cache/catalog-1000000.db') },
    only: { type: 'string', default: '^12 ' },
    seconds: { type: 'string', default: '4' },
    'warm-seconds': { type: 'string', default: '1' },
    slowest: { type: 'string', default: '12' },
  },
});

const db = values.db;
let foods: number;
try {
  const sql = new Database(db, { readonly: true, fileMustExist: true });
  foods = sql.prepare('SELECT count(*) FROM foods').pluck().get() as number;
  sql.close();
} catch (error) {
  throw new Error(`--db ${db}: ${error instanceof Error ? error.message : String(error)} (npm run bench -- --foods 1000000 makes bench/.cache/catalog-1000000.db)`);
}
const s = samples(db);
const only = new RegExp(values.only);
const list = scenarios(s, zipfOrder(s.zipfQueries.length), foods).filter((sc) => only.test(sc.name));
if (list.length === 0) throw new Error(`no scenario matches --only ${values.only}`);
const seconds = Number(values.seconds);

const traces = mkdtempSync(join(tmpdir(), 'request-split-'));
const hook = pathToFileURL(join(ROOT, 'dist/bench/request-split-hook.js')).href;
const [command, args] = pin('0', process.execPath, [CLI, 'serve', '--db', db, '--port', '0', '--workers', '1']);
const server = await startProcess(command, args, {
  FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'warn', REQUEST_SPLIT_OUT: traces,
  NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${hook}`.trim(),
});
const scenario = list[list.length - 1]!;
try {
  // As bench/run.ts: the first scenario not measured beside the file's read ahead and the
  // server's own searches (~5-8 s at 1,000,000 foods, in turns between requests).
  await backgroundDone(server.url, 1);
  for (const sc of list) {
    readWhole(db);
    await drain(server.url);
    await runLoad({ ...scenarioRequests(sc, 'warm-up'), url: server.url, connections: 8, seconds: Number(values['warm-seconds']) });
    await drain(server.url);
    // The worker sees these two requests too: they mark where the c=1 run's requests are.
    await fetch(`${server.url}${MARK}`);
    const c1 = await runLoad({ ...scenarioRequests(sc, 'c1'), url: server.url, connections: 1, seconds });
    await fetch(`${server.url}${MARK}`);
    process.stdout.write(`${sc.name}: c=1 ${c1.rps.toFixed(0)} req/s, at the load generator p50 ${c1.p50.toFixed(2)} ms, p99 ${c1.p99.toFixed(2)} ms\n`);
    if (sc === scenario) break;
    await drain(server.url);
    await runLoad({ ...scenarioRequests(sc, 'c64'), url: server.url, connections: 64, seconds });
  }
} finally {
  await stop(server.child);
}

const files = readdirSync(traces).filter((f) => f.endsWith('.json'));
if (files.length !== 1) throw new Error(`expected one worker's trace in ${traces}, found ${files.length}`);
const trace = JSON.parse(readFileSync(join(traces, files[0]!), 'utf8')) as RequestTrace;
rmSync(traces, { recursive: true });
const marks = trace.requests.flatMap((r, i) => (r.url === MARK ? [i] : []));
if (marks.length < 2) throw new Error(`the worker's trace lacks the marks around the c=1 run (${marks.length} found)`);
const run = trace.requests.slice(marks[marks.length - 2]! + 1, marks[marks.length - 1]);

/** Milliseconds of collection pauses between `from` and `to` (ms on the worker's clock). */
const pausedBetween = (from: number, to: number): number => {
  let ms = 0;
  for (const [start, duration] of trace.pauses) ms += Math.max(0, Math.min(to, start + duration) - Math.max(from, start));
  return ms;
};
/** Within a request. */
const paused = (r: RequestParts): number => pausedBetween(r.start, r.start + r.wall);
/**
 * Since the previous response went out, until the worker saw this request (at one connection
 * the load generator answers within ~0.04 ms and sends it at once): what the load generator's
 * time has beyond the worker's; of it the main thread's time on a core (work between requests:
 * V8's tasks, collections' steps, timers), the rest waiting; and the collection pauses in it
 * (a scavenge job or a marking step run as a task delays the request where the worker's own
 * times cannot see it).
 */
const gaps = new Map(run.map((r, i) => {
  const previous = run[i - 1];
  if (previous === undefined) return [r, { wait: 0, busy: 0, paused: 0 }];
  const sent = previous.start + previous.wall;
  const wait = Math.max(0, r.start - sent);
  return [r, { wait, busy: Math.min(wait, Math.max(0, r.threadAt - (previous.threadAt + previous.mainThread))), paused: pausedBetween(sent, r.start) }];
}));
const pausedBefore = (r: RequestParts): number => gaps.get(r)!.paused;
const parts: [string, (r: RequestParts) => number][] = [
  ['server (wall)', (r) => r.wall],
  ['main thread on a core', (r) => r.mainThread],
  ['  of it search engine', (r) => r.engine],
  ['    of it lists loaded/made', (r) => r.loadMs],
  ['  of it outside the engine', (r) => Math.max(0, r.mainThread - r.engine)],
  ['main thread off its core', (r) => Math.max(0, r.wall - r.mainThread)],
  ['  of it runnable, waiting for a core', (r) => r.runQueue],
  ['  of it blocked, or the VM not running', (r) => Math.max(0, r.wall - r.mainThread - r.runQueue)],
  ['collection pauses', paused],
  ['collection pauses before it', pausedBefore],
  ['since the previous response', (r) => gaps.get(r)!.wait],
  ['  of it main thread on a core', (r) => gaps.get(r)!.busy],
  ['minor page faults', (r) => r.faults],
  ['major page faults', (r) => r.majorFaults],
  ['lists loaded/made', (r) => r.loads],
  ['involuntary switches', (r) => r.preempted],
  ['voluntary switches', (r) => r.blocked],
];
const quantile = (xs: number[], q: number): number => {
  const sorted = xs.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const f = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2)).padStart(8);
process.stdout.write(`\n${scenario.name}, ${foods.toLocaleString('en')} foods: ${run.length} requests at c=1 in the worker (ms, or counts)\n${'part'.padEnd(40)}${'p50'.padStart(8)}${'p90'.padStart(8)}${'p99'.padStart(8)}${'max'.padStart(8)}\n`);
for (const [name, of] of parts) {
  const xs = run.map(of);
  process.stdout.write(`${name.padEnd(40)}${f(quantile(xs, 0.5))}${f(quantile(xs, 0.9))}${f(quantile(xs, 0.99))}${f(quantile(xs, 1))}\n`);
}
// What the tail is made of: the server's p99 were one part gone from every request.
const without: [string, (r: RequestParts) => number][] = [
  ['the engine', (r) => r.wall - r.engine],
  ['the main thread outside the engine', (r) => r.wall - Math.max(0, r.mainThread - r.engine)],
  ['off its core', (r) => Math.min(r.wall, r.mainThread)],
  ['collection pauses', (r) => r.wall - paused(r)],
];
process.stdout.write(`\nserver p99 ${quantile(run.map((r) => r.wall), 0.99).toFixed(2)} ms; without ${without.map(([name, of]) => `${name} ${quantile(run.map(of), 0.99).toFixed(2)}`).join(', ')}\n`);
// At one connection, what the load generator times is about the wait before a request and its wall time.
const seen = run.map((r) => ({ wall: r.wall, ...gaps.get(r)! }));
process.stdout.write(`with the wait since the previous response p99 ${quantile(seen.map((x) => x.wall + x.wait), 0.99).toFixed(2)} ms; without its time on a core ${quantile(seen.map((x) => x.wall + x.wait - x.busy), 0.99).toFixed(2)}\n`);
const slowest = run.slice().sort((a, b) => b.wall - a.wall).slice(0, Number(values.slowest));
process.stdout.write(`\nslowest: wall, main thread on a core, waiting for a core, engine, lists (ms, count), faults (minor, major), switches (involuntary, voluntary), request\n`);
for (const r of slowest) {
  const what = decodeURIComponent(r.url.replace(/^\/v1\/foods\?query=/, ''));
  process.stdout.write(`${[r.wall, r.mainThread, r.runQueue, r.engine, r.loadMs].map((x) => x.toFixed(2).padStart(7)).join('')} ${String(r.loads).padStart(3)} ${[r.faults, r.majorFaults, r.preempted, r.blocked].map((x) => String(x).padStart(5)).join('')}  ${what}\n`);
}
