import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { RawQuery } from '../query/params.js';

/**
 * Every method Node's parser hands to the router. CONNECT is not among them: Node gives it to
 * its own 'connect' event (answered in framing.ts), never to a route.
 */
export const ROUTABLE_METHODS: readonly string[] = METHODS.filter((method) => method !== 'CONNECT');

/** Lets routes be declared for every routable method (Fastify knows only the common ones). */
export function supportEveryMethod(app: FastifyInstance): void {
  for (const method of ROUTABLE_METHODS) if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
}

/** 405 with Allow for every method but `allowed` on `url` (after the plugin's own hooks: 401 first on /v1). */
export function refuseOtherMethods(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const allow = allowed.join(', ');
  app.route({
    method: ROUTABLE_METHODS.filter((method) => !allowed.includes(method)),
    url,
    // Before any body is read: a body of any type (or none, for QUERY) is still a 405.
    onRequest: (request, _reply, done) => done(errors.methodNotAllowed(request.method, allow)),
    handler: (request) => {
      throw errors.methodNotAllowed(request.method, allow);
    },
  });
}

export type GetHandler = (request: FastifyRequest<{ Params: Record<string, string> }>, reply: FastifyReply) => Promise<unknown>;

/** A read-only route: GET (and HEAD), and 405 with Allow for the other methods. */
export function getRoute(app: FastifyInstance, url: string, handler: GetHandler): void {
  app.get(url, handler);
  refuseOtherMethods(app, url, ['GET', 'HEAD']);
}

export function rawQuery(request: FastifyRequest): RawQuery {
  return request.query as RawQuery;
}
