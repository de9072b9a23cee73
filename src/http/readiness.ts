import type { FastifyInstance } from 'fastify';
import type { CatalogHealth, CatalogReader } from '../store/catalog-store.js';
import { refuseOtherMethods } from './get-route.js';

/** A store that has not answered in this long is not ready (PostgreSQL may hang rather than fail). */
const READY_TIMEOUT_MS = 2000;
/** /healthz waits less: it answers 200 whatever the store does, and only reports it. */
const HEALTH_TIMEOUT_MS = 1000;

/** The store's health, or the reason it gave none within `timeoutMs`. */
async function probe(store: CatalogReader, timeoutMs: number): Promise<{ health: CatalogHealth } | { failure: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return { health: await Promise.race([store.health(), timeout]) };
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /healthz and /readyz, no token.
 *
 * /healthz: the process is alive (always 200, so that a liveness probe never restarts a replica
 * for its database's sake), and whether the store answers right now (`store`: `ok` or
 * `unavailable`).
 *
 * /readyz: 200 when the catalogue is loaded (the server warms it before it listens) and the
 * store answers a real query within 2 s; 503 otherwise, and while the server drains (Fastify
 * answers 503 once it is closing). A load balancer takes a replica out of rotation on 503.
 * `catalog.localRows` says where a PostgreSQL replica's copy of the rows stands (--row-copy-dir):
 * it does not decide readiness, since the replica answers from PostgreSQL meanwhile; nor do
 * `catalog.filePages`, where a SQLite replica's read of its file's pages ahead stands, and
 * `catalog.searchWarmUp`, where its searches of its own stand (store/warm-searches.ts).
 */
export function healthRoutes(app: FastifyInstance, store: CatalogReader): void {
  refuseOtherMethods(app, '/healthz', ['GET', 'HEAD']);
  app.get('/healthz', async (request) => {
    const result = await probe(store, HEALTH_TIMEOUT_MS);
    if ('failure' in result) request.log.warn({ err: result.failure }, 'health: the store does not answer');
    return { status: 'ok', store: 'failure' in result ? 'unavailable' : 'ok' };
  });

  refuseOtherMethods(app, '/readyz', ['GET', 'HEAD']);
  app.get('/readyz', async (request, reply) => {
    const result = await probe(store, READY_TIMEOUT_MS);
    if ('health' in result) {
      const { version, foods, localRows, filePages, searchWarmUp } = result.health;
      return {
        status: 'ready',
        catalog: {
          version, foods,
          ...(localRows !== undefined ? { localRows } : {}), ...(filePages !== undefined ? { filePages } : {}), ...(searchWarmUp !== undefined ? { searchWarmUp } : {}),
        },
      };
    }
    request.log.warn({ err: result.failure }, 'not ready: the store does not answer');
    return reply.code(503).type('application/json; charset=utf-8')
      .send({ code: 503, message: 'Service Unavailable', details: 'The catalogue store does not answer' });
  });
}
