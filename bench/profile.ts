/**
 * The bench's requests answered in process, one at a time, each timed: where the time of a
 * scenario goes, without sockets or a load generator in the way. Requests go through the real
 * app (routing, auth, parameters, store, serialisation) with Fastify's inject.
 *
 *   node dist/bench/profile.js --db bench/.cache/catalog-1000000.db [--only REGEX] [--requests N] [--warm] [--cpu] [--memory]
 *
 * Each scenario's first N requests are answered once and timed. By default that is cold: the
 * first loads of postings and pages count. With --warm, N other requests of the same scenario
 * are answered first, so the page cache and postings are warm but the timed responses are not
 * cached. --cpu times each request in the process's CPU time (user + system, all threads)
 * instead of the wall clock, so that waiting for a core on a shared machine does not count.
 * Run node with --cpu-prof to see where a scenario's time goes.
 */
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openServingStore } from '../src/server.js';
import { openAuthenticator } from '../src/tokens/open.js';
import { AUTH, TOKEN, samples, scenarios, zipfOrder } from './scenarios.js';
import { clock } from './clock.js';
import { stillWorking } from './harness.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    only: { type: 'string' },
    requests: { type: 'string', default: '500' },
    warm: { type: 'boolean', default: false },
    /** Times in CPU time of the process (user + system) rather than wall clock. */
    cpu: { type: 'boolean', default: false },
    /** After each scenario, the process's memory (rss, V8 heap, buffers). */
    memory: { type: 'boolean', default: false },
  },
});
if (!values.db) throw new Error('--db PATH is required (e.g. bench/.cache/catalog-1000000.db)');

const config = loadConfig({ db: values.db, port: '0' }, { FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'silent' });
const store = await openServingStore(config);
await store.warm(); // as the server does before it listens
// And as it does once it listens (SQLite: the file's pages read ahead, page-map.ts; searches of its own, warm-searches.ts), waited for.
store.listening?.();
while (stillWorking(await store.health())) await new Promise((resolve) => setTimeout(resolve, 20));
const auth = await openAuthenticator(config, store);
const app = await buildApp(config, { store, auth });
const s = samples(values.db);
const foods = Number((await app.inject({ url: '/v1/foods?limit=1', headers: AUTH }).then((r) => r.json<{ metadata: { total: number } }>())).metadata.total);
const only = values.only === undefined ? undefined : new RegExp(values.only);
const list = scenarios(s, zipfOrder(s.zipfQueries.length), foods).filter((sc) => only === undefined || only.test(sc.name));
const n = Number(values.requests);

const now = clock(values.cpu);
const quantile = (sorted: Float64Array, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (x: number): string => x.toFixed(x < 10 ? 2 : 0).padStart(7);

process.stdout.write(`${foods.toLocaleString('en')} foods; ${values.warm ? 'warm (after N other requests)' : 'cold (first requests)'}; ` +
  `${values.cpu ? 'CPU time of the process' : 'wall clock'} in ms\n`);
process.stdout.write(`${'scenario'.padEnd(36)} ${'n'.padStart(5)} ${'mean'.padStart(7)} ${'p50'.padStart(7)} ${'p90'.padStart(7)} ${'p99'.padStart(7)} ${'max'.padStart(7)}  slowest\n`);
for (const scenario of list) {
  const available = scenario.bodies?.length ?? scenario.paths.length;
  const count = Math.min(n, values.warm ? Math.floor(available / 2) : available);
  const request = (i: number) => scenario.bodies
    ? { method: 'POST' as const, url: scenario.paths[0]!, payload: scenario.bodies[i]!, headers: { ...AUTH, 'content-type': 'application/soap+xml; charset=utf-8' } }
    : { method: 'GET' as const, url: scenario.paths[i]!, headers: { ...AUTH, ...scenario.headers } };
  const times = new Float64Array(count);
  let slowest = { ms: 0, what: '' };
  for (let pass = values.warm ? 0 : 1; pass < 2; pass++) {
    for (let i = 0; i < count; i++) {
      const started = now();
      const response = await app.inject(request(pass === 0 ? available - 1 - i : i));
      const took = now() - started;
      // inject settles in microtasks: without a turn of the event loop, setImmediate work (the
      // store's read batches, Fastify's and light-my-request's cleanups) would pile up as a
      // server's never does.
      await new Promise(setImmediate);
      if (response.statusCode >= 300) throw new Error(`${scenario.name}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      if (pass === 1) {
        times[i] = took;
        if (took > slowest.ms) slowest = { ms: took, what: scenario.bodies ? (/<f:terms>(.*)<\/f:terms>/.exec(scenario.bodies[i]!)?.[1] ?? scenario.bodies[i]!.slice(-80)) : scenario.paths[i]! };
      }
    }
  }
  const sorted = times.slice().sort();
  const mean = sorted.reduce((a, b) => a + b, 0) / count;
  process.stdout.write(`${scenario.name.padEnd(36)} ${String(count).padStart(5)} ${ms(mean)} ${ms(quantile(sorted, 0.5))} ${ms(quantile(sorted, 0.9))} ` +
    `${ms(quantile(sorted, 0.99))} ${ms(sorted[count - 1]!)}  ${decodeURIComponent(slowest.what).slice(0, 70)}\n`);
  if (values.memory) {
    const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
    const m = process.memoryUsage();
    process.stdout.write(`${''.padEnd(36)} memory: rss ${mib(m.rss)}, heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, ` +
      `external ${mib(m.external)} (array buffers ${mib(m.arrayBuffers)}), peak rss ${mib(process.resourceUsage().maxRSS * 1024)}\n`);
  }
}
await app.close();
await auth.close();
await store.close();
