/**
 * The load generator, run as its own process (pinned to its own core by bench/run): drives one
 * scenario with autocannon and prints one JSON line of figures.
 *
 *   echo '{"url":"http://127.0.0.1:8080","paths":["/v1/foods?query=x"],"connections":64,"seconds":10}' | node dist/bench/load.js
 */
import autocannon from 'autocannon';
import { readSpec, type LoadResult } from './load-spec.js';

const spec = await readSpec();
let next = 0;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  headers: spec.headers ?? {},
  method: spec.method ?? 'GET',
  requests: [{
    setupRequest: (request) => {
      const i = next++ % spec.paths.length;
      return { ...request, path: spec.paths[i]!, ...(spec.bodies ? { body: spec.bodies[i]! } : {}) };
    },
  }],
});
const out: LoadResult = {
  requests: result.requests.total,
  rps: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  max: result.latency.max,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
