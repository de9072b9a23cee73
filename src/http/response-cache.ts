import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogState } from '../store/catalog-store.js';
import { answerIfNotModified } from './caching.js';

/**
 * Serialised collection responses keyed by the request as sent and the catalogue version.
 * The catalogue is read-only between imports and every import that changes something moves
 * the version, so an entry can never be stale: a new version simply misses. Bodies are kept as
 * UTF-8 bytes, sent as they are. Bounded by entries and bytes, least recently used out first.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /**
   * The version and the request URL as sent (path and query string). Only successful
   * responses are stored, so a URL found here parsed and validated before, in this version,
   * and would again: a hit skips parameter parsing altogether.
   */
  static key(url: string, version: number): string {
    return `${version}|${url}`;
  }

  get(key: string): Buffer | undefined {
    const body = this.entries.get(key);
    if (body !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, body);
    }
    return body;
  }

  set(key: string, body: Buffer): void {
    if (body.length > this.maxBytes / 16) return; // one huge page must not flush the rest
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, body);
    this.bytes += body.length;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}

/**
 * Answers a collection request from the cache, or builds, stores and sends its body (a JSON
 * text). `prepare` parses and validates the request and returns the builder; it runs only on
 * a miss, and before the conditional check, so a bad request is a 400 even when it is
 * conditional. Last-Modified and ETag are the catalogue's.
 */
export async function sendCached(
  cache: ResponseCache,
  request: FastifyRequest,
  reply: FastifyReply,
  state: CatalogState,
  prepare: () => () => Promise<string>,
): Promise<FastifyReply> {
  const key = ResponseCache.key(request.url, state.version);
  let body = cache.get(key);
  const build = body === undefined ? prepare() : undefined;
  if (answerIfNotModified(request, reply, state.lastModified, `c${state.version}`)) return reply;
  if (build !== undefined) {
    body = Buffer.from(await build());
    cache.set(key, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}
