import type { FastifyInstance } from 'fastify';
import type { CatalogReader } from '../store/catalog-store.js';
import { refuseOtherMethods } from './get-route.js';

/** A store that has not answered in this long is not ready (PostgreSQL may hang rather than fail). */
const READY_TIMEOUT_MS = 2000;

/**
 * GET /readyz, no token: 200 when the catalogue is loaded (the server warms it before it
 * listens) and the store answers a real query within 2 s; 503 otherwise, and while the server
 * drains (Fastify answers 503 once it is closing). A load balancer takes a replica out of
 * rotation on 503; /healthz says only that the process is alive.
 */
export function readinessRoute(app: FastifyInstance, store: CatalogReader): void {
  refuseOtherMethods(app, '/readyz', ['GET', 'HEAD']);
  app.get('/readyz', async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      const health = await Promise.race([store.health(), timeout]);
      return { status: 'ready', catalog: { version: health.version, foods: health.foods } };
    } catch (error) {
      request.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'not ready: the store does not answer');
      return reply.code(503).type('application/json; charset=utf-8')
        .send({ code: 503, message: 'Service Unavailable', details: 'The catalogue store does not answer' });
    } finally {
      clearTimeout(timer);
    }
  });
}
