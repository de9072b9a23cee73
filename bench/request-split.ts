/**
 * Where the time of a scenario's requests at one connection goes, on the real server: the bench's
 * c=1 run of one scenario (after its untimed warm-up at 8 connections, as bench/run.ts does),
 * with each request split in the serving worker (bench/request-split-hook.ts): wall time,
 * CPU time and its system part, the search engine, lists loaded or made (the list cache's
 * misses), page faults, the core taken by another process, garbage collections' pauses.
 *
 *   node dist/bench/request-split.js [--db bench/.cache/catalog-1000000.db] [--only '^12 '] [--seconds 4] [--warm-seconds 1] [--slowest 12]
 *
 * It prints each part's p50, p90 and p99 over the c=1 run, the server's p99 with each part
 * taken out of every request (which part the tail is made of), and the slowest requests with
 * their parts. Figures are of one run on one machine: alternate runs to compare two builds.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { CLI, ROOT, drain, pin, readWhole, runLoad, startProcess, stop } from './harness.js';
import type { LoadSpec } from './load-spec.js';
import type { RequestParts, RequestTrace } from './request-split-hook.js';
import { AUTH, TOKEN, samples, scenarios, zipfOrder } from './scenarios.js';

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
const scenario = scenarios(s, zipfOrder(s.zipfQueries.length), foods).find((sc) => only.test(sc.name));
if (scenario === undefined) throw new Error(`no scenario matches --only ${values.only}`);

// As bench/run.ts: the warm-up from the list's end backwards, the timed run from its start.
const requests = scenario.bodies?.length ?? scenario.paths.length;
const spec = (order: number[], connections: number, seconds: number): LoadSpec => ({
  url: '', connections, seconds,
  paths: order.map((i) => (scenario.bodies ? scenario.paths[0]! : scenario.paths[i]!)),
  ...(scenario.bodies
    ? { method: 'POST' as const, bodies: order.map((i) => scenario.bodies![i]!), headers: { ...AUTH, 'content-type': 'application/soap+xml; charset=utf-8' } }
    : { headers: { ...AUTH, ...scenario.headers } }),
});
const forwards = Array.from({ length: requests }, (_, i) => i);

const traces = mkdtempSync(join(tmpdir(), 'request-split-'));
process.stderr.write(`read the database into the page cache in ${readWhole(db).toFixed(1)} s\n`);
const hook = pathToFileURL(join(ROOT, 'dist/bench/request-split-hook.js')).href;
const [command, args] = pin('0', process.execPath, [CLI, 'serve', '--db', db, '--port', '0', '--workers', '1']);
const server = await startProcess(command, args, {
  FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'warn', REQUEST_SPLIT_OUT: traces,
  NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${hook}`.trim(),
});
let timed: number;
try {
  await runLoad({ ...spec(forwards.slice().reverse(), 8, Number(values['warm-seconds'])), url: server.url });
  await drain(server.url);
  const c1 = await runLoad({ ...spec(forwards, 1, Number(values.seconds)), url: server.url });
  timed = c1.requests;
  process.stdout.write(`${scenario.name}, ${foods.toLocaleString('en')} foods: c=1 ${c1.rps.toFixed(0)} req/s, at the load generator p50 ${c1.p50.toFixed(2)} ms, p99 ${c1.p99.toFixed(2)} ms\n`);
} finally {
  await stop(server.child);
}

const files = readdirSync(traces).filter((f) => f.endsWith('.json'));
if (files.length !== 1) throw new Error(`expected one worker's trace in ${traces}, found ${files.length}`);
const trace = JSON.parse(readFileSync(join(traces, files[0]!), 'utf8')) as RequestTrace;
rmSync(traces, { recursive: true });
// The c=1 run's requests are the worker's last (then only /healthz... none: drain ran before it).
const run = trace.requests.slice(-timed);

/** Milliseconds of collection pauses within a request. */
const paused = (r: RequestParts): number => {
  let ms = 0;
  for (const [start, duration] of trace.pauses) ms += Math.max(0, Math.min(r.start + r.wall, start + duration) - Math.max(r.start, start));
  return ms;
};
const parts: [string, (r: RequestParts) => number][] = [
  ['server (wall)', (r) => r.wall],
  ['off the CPU (wall - CPU)', (r) => Math.max(0, r.wall - r.cpu)],
  ['CPU', (r) => r.cpu],
  ['  of it system', (r) => r.system],
  ['  of it search engine', (r) => r.engine],
  ['    of it lists loaded/made', (r) => r.loadMs],
  ['  of it outside the engine', (r) => Math.max(0, r.cpu - r.engine)],
  ['collection pauses', paused],
  ['minor page faults', (r) => r.faults],
  ['lists loaded/made', (r) => r.loads],
  ['involuntary switches', (r) => r.preempted],
];
const quantile = (xs: number[], q: number): number => {
  const sorted = xs.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const f = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2)).padStart(8);
process.stdout.write(`\n${run.length} requests in the worker (ms, or counts)\n${'part'.padEnd(30)}${'p50'.padStart(8)}${'p90'.padStart(8)}${'p99'.padStart(8)}${'max'.padStart(8)}\n`);
for (const [name, of] of parts) {
  const xs = run.map(of);
  process.stdout.write(`${name.padEnd(30)}${f(quantile(xs, 0.5))}${f(quantile(xs, 0.9))}${f(quantile(xs, 0.99))}${f(quantile(xs, 1))}\n`);
}
// What the tail is made of: the server's p99 were one part gone from every request.
const without: [string, (r: RequestParts) => number][] = [
  ['off the CPU', (r) => Math.min(r.wall, r.cpu)],
  ['the engine', (r) => r.wall - r.engine],
  ['CPU outside the engine', (r) => r.wall - Math.max(0, r.cpu - r.engine)],
  ['collection pauses', (r) => r.wall - paused(r)],
];
process.stdout.write(`\nserver p99 ${quantile(run.map((r) => r.wall), 0.99).toFixed(2)} ms; without ${without.map(([name, of]) => `${name} ${quantile(run.map(of), 0.99).toFixed(2)}`).join(', ')}\n`);
const slowest = run.slice().sort((a, b) => b.wall - a.wall).slice(0, Number(values.slowest));
process.stdout.write(`\nslowest: wall, CPU, system, engine, lists (ms, count), faults, switches, request\n`);
for (const r of slowest) {
  const what = decodeURIComponent(r.url.replace(/^\/v1\/foods\?query=/, ''));
  process.stdout.write(`${[r.wall, r.cpu, r.system, r.engine, r.loadMs].map((x) => x.toFixed(2).padStart(7)).join('')} ${String(r.loads).padStart(3)} ${String(r.faults).padStart(5)} ${String(r.preempted).padStart(3)}  ${what}\n`);
}
