import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';

/** An incoming X-Request-Id is kept only when it is a short token: it goes into logs and headers. */
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of a request: the caller's X-Request-Id when it is sane (a proxy's or a client's), else a new uuid. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : randomUUID();
}

/**
 * Every response carries its request's id in X-Request-Id: the same id is on the request's log
 * line (`reqId`) and in a 500's `details`. Set first thing, so errors and 304s carry it too.
 */
export function installRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id);
    done();
  });
}
