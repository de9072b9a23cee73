/**
 * Where the c=64 tail of a slow scenario comes from: drives a running server with N kept-alive
 * connections (each sends its next request when its last answer is in, as autocannon does),
 * times every request, and reports the first request of each connection apart from the rest.
 *
 *   node dist/bench/connections.js --url http://127.0.0.1:8080 --db bench/.cache/catalog-1000000.db \
 *     --scenario '^2 ' [--connections 64] [--seconds 8]
 *
 * The server must accept the bench's token: serve with FOODLOOKUP_TOKENS=bench-token.
 *
 * Node's event loop (libuv) accepts one connection per loop iteration (strace: one accept4 per
 * iteration, also on a bare Node http server). Left alone, an iteration under load answers
 * every connection that has a request waiting: with 64 connections opened at once on a server
 * that spends ~2 ms a request, the last ones waited ~60 iterations of up to ~100 ms before their
 * first request was even read. The server's turnstile (src/http/turnstile.ts) keeps iterations
 * to a turn of a few ms and holds its releases while connections are being accepted; this tool
 * shows what remains of that ramp.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { AUTH, samples, scenarios, zipfOrder } from './scenarios.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    db: { type: 'string' },
    scenario: { type: 'string', default: '^2 ' },
    connections: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '8' },
  },
});
if (!values.url || !values.db) throw new Error('--url and --db are required');
const s = samples(values.db);
const scenario = scenarios(s, zipfOrder(s.zipfQueries.length), 1_000_000).find((sc) => new RegExp(values.scenario).test(sc.name) && !sc.method);
if (!scenario) throw new Error(`no GET scenario matches ${values.scenario}`);

const url = new URL(values.url);
const connections = Number(values.connections);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const started = performance.now();
const until = started + Number(values.seconds) * 1000;
let next = Math.floor(scenario.paths.length / 2);

function request(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    const req = http.request({ host: url.hostname, port: url.port, path, agent, headers: AUTH }, (res) => {
      // A refused request is fast: counting it would flatter the server (serve with
      // FOODLOOKUP_TOKENS=bench-token).
      if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
      res.resume();
      res.on('end', () => resolve(performance.now() - sent));
    });
    req.on('error', reject);
    req.end();
  });
}

const first: number[] = [];
const later: number[] = [];
/** The slowest requests: when they were sent (ms after the start) and what they asked. */
const slowest: { ms: number; at: number; path: string }[] = [];
await Promise.all(Array.from({ length: connections }, async () => {
  for (let n = 0; performance.now() < until; n++) {
    const path = scenario.paths[next++ % scenario.paths.length]!;
    const at = performance.now() - started;
    const ms = await request(path);
    (n === 0 ? first : later).push(ms);
    if (slowest.length < 5 || ms > slowest[slowest.length - 1]!.ms) {
      slowest.push({ ms, at, path });
      slowest.sort((a, b) => b.ms - a.ms);
      slowest.length = Math.min(slowest.length, 5);
    }
  }
}));
agent.destroy();

const summary = (times: number[]): string => {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number): string => sorted[Math.floor(p * (sorted.length - 1))]!.toFixed(0);
  return `${sorted.length} requests, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
};
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${scenario.name}, ${connections} connections, ${((first.length + later.length) / seconds).toFixed(0)} req/s\n`);
process.stdout.write(`  first request of each connection: ${summary(first)}\n`);
process.stdout.write(`  every later request:              ${summary(later)}\n`);
for (const r of slowest) process.stdout.write(`  ${r.ms.toFixed(0).padStart(6)} ms, sent at ${(r.at / 1000).toFixed(2)} s: ${decodeURIComponent(r.path)}\n`);
