import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sets Last-Modified (second precision) and a weak ETag for a representation that last
 * changed at `lastModified` (ms), and answers 304 when the client's copy is current.
 * Returns true when the 304 was sent.
 */
export function answerIfNotModified(request: FastifyRequest, reply: FastifyReply, lastModified: number, tag: string): boolean {
  const seconds = Math.floor(lastModified / 1000);
  const etag = `W/"${tag}-${lastModified.toString(36)}"`;
  reply.header('Last-Modified', new Date(seconds * 1000).toUTCString());
  reply.header('ETag', etag);
  reply.header('Cache-Control', 'private, no-cache');
  const noneMatch = request.headers['if-none-match'];
  let fresh = false;
  if (noneMatch !== undefined) {
    fresh = noneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*');
  } else {
    const since = request.headers['if-modified-since'];
    if (since) {
      const time = Date.parse(since);
      fresh = !Number.isNaN(time) && time >= seconds * 1000;
    }
  }
  if (fresh) void reply.code(304).send();
  return fresh;
}
