import type { FastifyInstance } from 'fastify';
import { createServer, type Server } from 'node:http';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CatalogReader } from '../store/catalog-store.js';
import type { Authenticator } from '../tokens/authenticator.js';
import type { CounterMetrics } from '../tokens/counters.js';
import type { ResponseCache } from './response-cache.js';
import { ApiError } from '../errors.js';

/** What the metrics read besides the requests themselves. */
export interface MetricsSources {
  readonly store: CatalogReader;
  readonly cache: ResponseCache;
  /** The quota counters' health (Redis fail-opens), when the authenticator keeps counters. */
  readonly counters?: () => CounterMetrics;
}

const registries = new WeakMap<FastifyInstance, Registry>();

/** A counter that follows a monotonic number kept elsewhere (read at scrape time). */
function followingCounter(registry: Registry, name: string, help: string, read: () => number): void {
  let seen = 0;
  new Counter({
    name, help, registers: [registry],
    collect() {
      const now = read();
      if (now > seen) this.inc(now - seen);
      seen = Math.max(seen, now);
    },
  });
}

/**
 * Prometheus metrics of one app (prom-client), collected only when `--metrics-port` is set and
 * served on that port, never on the public one (metrics-server below). Requests by route
 * template and status, latency, response-cache hits, the catalogue's version and size and the
 * last import's duration, quota rejections and Redis fail-opens, and the process's own
 * (CPU, memory, event loop). Catalogue gauges aggregate by `max` across workers, counters by sum.
 */
export function installMetrics(app: FastifyInstance, sources: MetricsSources): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'foodlookup_' });
  const requests = new Counter({
    name: 'foodlookup_http_requests_total', help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const, registers: [registry],
  });
  const latency = new Histogram({
    name: 'foodlookup_http_request_duration_seconds', help: 'Time from a request to its response, by route template',
    labelNames: ['route'] as const, registers: [registry],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  app.addHook('onResponse', (request, reply, done) => {
    // Route templates, never raw paths: unknown paths would make a label value per request.
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ route }, reply.elapsedTime / 1000);
    done();
  });
  followingCounter(registry, 'foodlookup_response_cache_hits_total', 'Collection requests answered from the response cache', () => sources.cache.hits);
  followingCounter(registry, 'foodlookup_response_cache_misses_total', 'Collection requests built by the store', () => sources.cache.misses);
  quotaRejections.set(app, new Counter({
    name: 'foodlookup_quota_rejections_total', help: 'Requests refused because their token was past its quota (JSON 429 and SOAP faults)',
    registers: [registry],
  }));
  const counters = sources.counters;
  if (counters) {
    followingCounter(registry, 'foodlookup_redis_fail_open_total',
      'Requests counted in process because Redis was unreachable (quotas fail open)', () => counters().failOpenHits);
    followingCounter(registry, 'foodlookup_redis_outages_total', 'Times Redis became unreachable', () => counters().redisOutages);
  }
  const catalog = async (): Promise<{ version: number; foods: number; lastImportSeconds?: number } | undefined> => {
    try {
      return await sources.store.health();
    } catch {
      return undefined;
    }
  };
  new Gauge({
    name: 'foodlookup_catalog_version', help: 'Catalogue version (moves with every import that changed something)',
    registers: [registry], aggregator: 'max',
    async collect() {
      const health = await catalog();
      if (health) this.set(health.version);
    },
  });
  new Gauge({
    name: 'foodlookup_catalog_foods', help: 'Foods in the catalogue', registers: [registry], aggregator: 'max',
    async collect() {
      const health = await catalog();
      if (health) this.set(health.foods);
    },
  });
  new Gauge({
    name: 'foodlookup_last_import_duration_seconds', help: 'How long the import that last wrote the catalogue took',
    registers: [registry], aggregator: 'max',
    async collect() {
      const health = await catalog();
      if (health?.lastImportSeconds !== undefined) this.set(health.lastImportSeconds);
    },
  });
  registries.set(app, registry);
  return registry;
}

const quotaRejections = new WeakMap<FastifyInstance, Counter>();

/** The authenticator, counting its quota refusals in the app's metrics (when it has them). */
export function countingQuotaRejections(app: FastifyInstance, auth: Authenticator): Authenticator {
  const counter = quotaRejections.get(app);
  if (!counter) return auth;
  return {
    async authenticate(secret, clientIp) {
      const result = await auth.authenticate(secret, clientIp);
      if (!result.ok && result.reason === 'quota') counter.inc();
      return result;
    },
  };
}

/** The app's metrics registry, when metrics are on. */
export function metricsRegistryOf(app: FastifyInstance): Registry | undefined {
  return registries.get(app);
}

/**
 * In a worker of `serve --workers N`, from its start: answers the primary's requests for this
 * worker's metrics (prom-client's cluster protocol), with none until `shareMetricsWithPrimary`.
 * A request that reaches a worker without the listener is dropped, and the primary's scrape
 * waits out prom-client's 5 s for it: so for as long as a new worker opens its store.
 */
export function answerPrimaryForMetrics(): void {
  AggregatorRegistry.setRegistries([]);
  // The constructor installs the worker's message listener (prom-client has no other way in).
  new AggregatorRegistry();
}

/** In a worker: the primary's endpoint sums this registry with every other worker's. */
export function shareMetricsWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  // Adds no second listener when answerPrimaryForMetrics has run (prom-client's listeners are idempotent).
  new AggregatorRegistry();
}

const METRICS_RETRY_SECONDS = 5;

/**
 * GET /metrics on its own port (`--metrics-port`): the registry's text, or with workers, the
 * primary's aggregate of every worker's. Anything else is 404.
 */
export async function listenMetrics(host: string, port: number, metrics: () => Promise<{ text: string; contentType: string }>): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ code: 404, message: 'Not Found', details: `Path: ${path}` }));
      return;
    }
    metrics().then(({ text, contentType }) => {
      response.writeHead(200, { 'Content-Type': contentType });
      response.end(request.method === 'HEAD' ? undefined : text);
    }, () => {
      // With workers, a worker that did not answer in time (busy, or being replaced): the next scrape may well succeed.
      const api = new ApiError(503, 'Service Unavailable', `The metrics could not be collected; retry in ${METRICS_RETRY_SECONDS} s`, { 'Retry-After': String(METRICS_RETRY_SECONDS) });
      response.writeHead(api.status, { 'Content-Type': 'application/json; charset=utf-8', ...api.headers });
      response.end(request.method === 'HEAD' ? undefined : JSON.stringify(api.body()));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** The metrics server of a `serve` primary: every worker's metrics, summed (catalogue gauges: max). */
export function listenClusterMetrics(host: string, port: number): Promise<Server> {
  const aggregator = new AggregatorRegistry();
  return listenMetrics(host, port, async () => ({ text: await aggregator.clusterMetrics(), contentType: aggregator.contentType }));
}
