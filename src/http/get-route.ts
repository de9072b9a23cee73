import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { RawQuery } from '../query/params.js';

const OTHER_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export type GetHandler = (request: FastifyRequest<{ Params: Record<string, string> }>, reply: FastifyReply) => Promise<unknown>;

/** A read-only route: GET (and HEAD), and 405 with Allow for the other methods. */
export function getRoute(app: FastifyInstance, url: string, handler: GetHandler): void {
  app.get(url, handler);
  app.route({
    method: [...OTHER_METHODS],
    url,
    handler: (request) => {
      throw errors.methodNotAllowed(request.method, 'GET, HEAD');
    },
  });
}

export function rawQuery(request: FastifyRequest): RawQuery {
  return request.query as RawQuery;
}
