import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { envInteger, type Config } from './config.js';
import type { CatalogStore } from './store/catalog-store.js';
import type { Authenticator } from './tokens/authenticator.js';
import { ApiError, errors } from './errors.js';
import { authHook } from './http/auth.js';
import { installErrorHandling } from './http/errors.js';
import { foodRoutes } from './http/routes/foods.js';
import { namedRecordRoutes } from './http/routes/named-records.js';
import { soapPlugin } from './soap/plugin.js';
import { ResponseCache } from './http/response-cache.js';
import { installTurnstile } from './http/turnstile.js';
import { installCompression } from './http/compression.js';
import { installCors } from './http/cors.js';
import { countingQuotaRejections, installMetrics } from './http/metrics.js';
import { readinessRoute } from './http/readiness.js';
import { apiDocsRoutes } from './http/api-docs.js';
import { installRequestIds, requestIdFor } from './http/request-id.js';
import type { AuthMetrics } from './tokens/token-authenticator.js';

/** Longest request URI accepted (contract C3: 1,000 uuids in one list must fit). */
export const MAX_URI_BYTES = 64 * 1024;
const MAX_HEAD_BYTES = 1024 * 1024;

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
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1000 },
    // Node refuses larger heads with a bare 431; up to this size our own check answers the
    // contract's 414 for long URIs.
    http: { maxHeaderSize: MAX_HEAD_BYTES },
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      const api = error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError(431, 'Request Header Fields Too Large', `The request head is longer than ${MAX_HEAD_BYTES} bytes`)
        : new ApiError(400, 'Bad Request', 'Malformed HTTP request');
      const body = JSON.stringify(api.body());
      if (socket.writable) {
        socket.end(`HTTP/1.1 ${api.status} ${api.message}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      }
    },
  });

  installErrorHandling(app);
  installRequestIds(app);
  // Before the token check (a preflight carries no credentials) and before the routes.
  if (config.corsOrigins !== undefined) await installCors(app, config.corsOrigins);
  await installCompression(app);
  const cache = new ResponseCache();
  if (config.metricsPort !== undefined) {
    const counters = (deps.auth as Partial<{ metrics(): AuthMetrics }>).metrics;
    installMetrics(app, { store: deps.store, cache, ...(counters ? { counters: () => counters.call(deps.auth).counters } : {}) });
  }
  const auth = countingQuotaRejections(app, deps.auth);

  // One log line per request (its object is not even built when info lines are off).
  const LOGS_INFO = new Set(['trace', 'debug', 'info']);
  app.addHook('onResponse', (request, reply, done) => {
    if (LOGS_INFO.has(request.log.level)) request.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request');
    done();
  });

  const checkToken = authHook(auth);
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.length > MAX_URI_BYTES) throw errors.uriTooLong(MAX_URI_BYTES);
    if (request.url === '/v1' || request.url.startsWith('/v1/') || request.url.startsWith('/v1?')) {
      await checkToken(request, reply);
    }
  });

  // A synchronous store's requests run in turns of this many µs (0: as they come).
  const turnMicros = envInteger('FOODLOOKUP_TURN_US', 0, 2000);
  if (deps.store.answersSynchronously && turnMicros > 0) installTurnstile(app, turnMicros / 1000);

  app.get('/healthz', () => ({ status: 'ok' }));
  readinessRoute(app, deps.store);
  apiDocsRoutes(app);

  await app.register(
    (v1, _options, done) => {
      foodRoutes(v1, deps.store, cache);
      namedRecordRoutes(v1, deps.store, cache);
      done();
    },
    { prefix: '/v1' },
  );

  await app.register(soapPlugin, { reader: deps.store, auth });

  return app;
}
