import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../errors.js';

/** Seconds a client is asked to wait when the store is unreachable (Retry-After). */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The store could not be reached (src/store/postgres/connection.ts StoreUnavailable). Told by
 * its name: importing the class would load the PostgreSQL client into every SQLite server.
 */
export function isStoreUnavailable(error: unknown): error is Error & { readonly database: string; readonly reason: string } {
  return error instanceof Error && error.name === 'StoreUnavailable' && typeof (error as { database?: unknown }).database === 'string';
}

/** The log line of a request that met an unreachable store: the server's host:port/db and why, never a password. */
export function logStoreUnavailable(request: FastifyRequest, error: Error & { readonly database: string; readonly reason: string }): void {
  request.log.warn({ database: error.database, reason: error.reason }, 'store unavailable: answered 503');
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 411: 'Length Required',
  413: 'Payload Too Large', 414: 'URI Too Long', 415: 'Unsupported Media Type', 431: 'Request Header Fields Too Large',
};

/** The path of a request as the client sent it, without the query string (404 details). */
export function receivedPath(request: FastifyRequest): string {
  const url = request.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * One place that turns errors into the contract's body. ApiErrors carry their own status;
 * Fastify's own 4xx keep their status with a short message; anything else is the opaque
 * 500 with the request id, logged in full. An unreachable store is a 503 with Retry-After:
 * the request was fine and may succeed shortly.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    let api: ApiError;
    if (error instanceof ApiError) {
      api = error;
    } else if (isStoreUnavailable(error)) {
      logStoreUnavailable(request, error);
      api = errors.storeUnavailable(STORE_RETRY_AFTER_SECONDS);
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      api = new ApiError(error.statusCode, STATUS_TEXT[error.statusCode] ?? 'Bad Request', error.message);
    } else {
      request.log.error({ err: error }, 'request failed');
      api = errors.internal(String(request.id));
    }
    for (const [name, value] of Object.entries(api.headers)) void reply.header(name, value);
    return reply.code(api.status).type('application/json; charset=utf-8').send(api.body());
  });

  app.setNotFoundHandler((request) => {
    throw errors.routeNotFound(receivedPath(request));
  });
  // Before any body is read (a QUERY without Content-Type, a malformed one, would be a 400 or
  // 415 first), and after every onRequest hook: on /v1, authentication comes first.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.is404) throw errors.routeNotFound(receivedPath(request));
    return payload;
  });
}
