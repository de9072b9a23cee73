import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, errors } from '../errors.js';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 411: 'Length Required',
  413: 'Payload Too Large', 414: 'URI Too Long', 415: 'Unsupported Media Type', 431: 'Request Header Fields Too Large',
};

/**
 * One place that turns errors into the contract's body. ApiErrors carry their own status;
 * Fastify's own 4xx keep their status with a short message; anything else is the opaque
 * 500 with the request id, logged in full.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    let api: ApiError;
    if (error instanceof ApiError) {
      api = error;
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
    throw errors.routeNotFound(request.url.split('?')[0] ?? request.url);
  });
}
