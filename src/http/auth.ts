import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator, RateLimitInfo } from '../tokens/authenticator.js';
import { errors } from '../errors.js';

/** The username of HTTP Basic credentials (the access token); the password is ignored. */
export function basicUsername(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Basic[ \t]+([A-Za-z0-9+/=_-]+)[ \t]*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const username = colon === -1 ? decoded : decoded.slice(0, colon);
  return username === '' ? undefined : username;
}

export function rateLimitHeaders(reply: FastifyReply, info: RateLimitInfo | undefined): void {
  if (!info) return;
  reply.header('X-RateLimit-Limit', String(info.limit));
  reply.header('X-RateLimit-Remaining', String(info.remaining));
  reply.header('X-RateLimit-Reset', String(info.resetSeconds));
}

/** Checks the token of a /v1 request before anything else (contract C3, C5). */
export function authHook(auth: Authenticator) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const result = await auth.authenticate(basicUsername(request.headers.authorization), request.ip);
    if (result.ok) {
      rateLimitHeaders(reply, result.rateLimit);
      return;
    }
    switch (result.reason) {
      case 'unauthorized':
        throw errors.unauthorized();
      case 'forbidden':
        throw errors.forbidden();
      case 'quota':
        rateLimitHeaders(reply, result.rateLimit);
        throw errors.quotaExceeded(
          `Limit of ${result.rateLimit.limit} requests reached; the window resets in ${result.rateLimit.resetSeconds} s`,
          result.rateLimit.resetSeconds,
        );
    }
  };
}
