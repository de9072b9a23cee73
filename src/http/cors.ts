import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors, { type FastifyCorsOptions } from '@fastify/cors';

/** Headers a browser app may read: request ids, quotas, caching. */
const EXPOSED = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'ETag', 'Last-Modified'];

/**
 * CORS for browser apps on other origins (`--cors-origins`, off by default). Responses to an
 * allowed origin carry Access-Control-Allow-Origin; a preflight (OPTIONS with Origin and
 * Access-Control-Request-Method) is answered 204 in an onRequest hook registered before the
 * token check, as a browser sends no credentials with it. Any other OPTIONS goes on to its
 * route, as without CORS (401, then 405). Registered before the routes and the auth hook.
 */
export async function installCors(app: FastifyInstance, origins: '*' | readonly string[]): Promise<void> {
  const allowed: FastifyCorsOptions = {
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
    strictPreflight: false,
  };
  const notPreflight: FastifyCorsOptions = { ...allowed, preflight: false };
  const isPreflight = (request: FastifyRequest): boolean =>
    request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
  await app.register(cors, {
    delegator: (request, callback) => callback(null, isPreflight(request) ? allowed : notPreflight),
  });
}
