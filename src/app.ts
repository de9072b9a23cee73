import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { envInteger, type Config } from './config.js';
import type { CatalogStore } from './store/catalog-store.js';
import type { Authenticator } from './tokens/authenticator.js';
import { installErrorHandling } from './http/errors.js';
import { clientError, frameworkError, installFraming, literalBadEscapes, MAX_HEAD_BYTES, MAX_URI_BYTES } from './http/framing.js';
import { refuseOtherMethods, supportEveryMethod } from './http/get-route.js';
import { v1Routes } from './http/v1.js';
import { SOAP_PATH, soapPlugin } from './soap/plugin.js';
import { installTurnstile } from './http/turnstile.js';
import { installCompression } from './http/compression.js';
import { installCors } from './http/cors.js';
import { healthRoutes } from './http/readiness.js';
import { apiDocsRoutes } from './http/api-docs.js';
import { installRequestIds, requestIdFor } from './http/request-id.js';
import { ResponseCache } from './http/response-cache.js';
import type { AuthMetrics } from './tokens/token-authenticator.js';

export interface AppDeps {
  readonly store: CatalogStore;
  readonly auth: Authenticator;
  /** Where log lines go; defaults to stdout. Tests pass a stream to read them. */
  readonly logStream?: NodeJS.WritableStream;
}

/** Builds the whole service (JSON, SOAP, health) without listening: tests use it directly. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(deps.logStream ? { stream: deps.logStream } : {}),
      // Never log headers: the Basic credentials are the token.
      serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }) },
    },
    // Fastify's two lines per request are replaced by one (the onResponse hook below).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => requestIdFor(request.headers['x-request-id']),
    trustProxy: config.trustProxy,
    // An id may be as long as the URL (contract C3: no limit of its own below 64 KiB).
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_URI_BYTES },
    rewriteUrl: (request) => literalBadEscapes(request.url ?? '/'),
    frameworkErrors: frameworkError,
    // Node refuses larger heads (431, clientError); up to this size our own check answers the
    // contract's 414 for long URIs. A request without Host is answered by installFraming.
    http: { maxHeaderSize: MAX_HEAD_BYTES, requireHostHeader: false },
    clientErrorHandler: clientError,
    // Requests that reach a route while the server closes are served (with Connection: close),
    // not refused with Fastify's own 503 body.
    return503OnClosing: false,
  });

  installErrorHandling(app);
  installFraming(app);
  supportEveryMethod(app);
  installRequestIds(app);
  // Before the token check (a preflight carries no credentials) and before the routes.
  if (config.corsOrigins !== undefined) await installCors(app, config.corsOrigins);
  await installCompression(app);
  const cache = new ResponseCache(config.responseCacheBytes);
  let auth = deps.auth;
  if (config.metricsPort !== undefined) {
    // Loaded only when metrics are on: prom-client and what it loads (~80 files) were ~30-75 ms
    // of a worker's start before it listened, on a slow VM.
    const { countingQuotaRejections, installMetrics } = await import('./http/metrics.js');
    const counters = (deps.auth as Partial<{ metrics(): AuthMetrics }>).metrics;
    installMetrics(app, { store: deps.store, cache, ...(counters ? { counters: () => counters.call(deps.auth).counters } : {}) });
    auth = countingQuotaRejections(app, deps.auth);
  }

  // One log line per request (its object is not even built when info lines are off).
  const LOGS_INFO = new Set(['trace', 'debug', 'info']);
  app.addHook('onResponse', (request, reply, done) => {
    if (LOGS_INFO.has(request.log.level)) request.log.info({ method: request.method, url: request.originalUrl, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request');
    done();
  });

  // Requests start in turns of this many µs (0: as they come), whatever the store: PostgreSQL's
  // requests also do their search and JSON work on the loop, and without turns the 64th
  // connection of a burst waited up to 0.7-1.2 s for its first answer (bench/connections.ts).
  // 4 ms rather than 2: each turn ends in a loop iteration of its own, and at 1,000,000 foods
  // type-ahead after words at c=64 answered 4-7 % more a second (alternated pairs and partial
  // runs), no latency target of any scenario worse in whole runs; a cold burst of 64
  // connections' first answers p99 261 ms against 306 with 2 ms turns (`git log -p bench/README.md`).
  // 6 ms once the connections are open, 4 at most while they arrive (turnstile.ts).
  const turnMicros = envInteger('FOODLOOKUP_TURN_US', 0, 6000);
  if (turnMicros > 0) installTurnstile(app, turnMicros / 1000, Math.min(turnMicros, 4000) / 1000);

  healthRoutes(app, deps.store);
  apiDocsRoutes(app);

  await app.register(v1Routes, { prefix: '/v1', reader: deps.store, auth, cache });

  await app.register(soapPlugin, { reader: deps.store, auth });
  // Not SOAP requests, so answered by the app's error handler (JSON), as GET without ?wsdl is.
  refuseOtherMethods(app, SOAP_PATH, ['GET', 'HEAD', 'POST']);

  return app;
}
