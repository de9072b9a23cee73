import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Serialised collection responses keyed by the normalised request and the catalogue version.
 * The catalogue is read-only between imports and every import that changes something moves
 * the version, so an entry can never be stale: a new version simply misses. Bounded by
 * entries and bytes, least recently used out first.
 */
export class ResponseCache {
  private readonly entries = new Map<string, string>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** `/v1/foods` + its parameters in a stable order + the catalogue version. */
  static key(path: string, query: Readonly<Record<string, unknown>>, version: number): string {
    const params = Object.keys(query).sort().map((k) => `${k}=${String(query[k])}`).join('&');
    return `${version}|${path}?${params}`;
  }

  get(key: string): string | undefined {
    const body = this.entries.get(key);
    if (body !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, body);
    }
    return body;
  }

  set(key: string, body: string): void {
    if (body.length * 2 > this.maxBytes / 16) return; // one huge page must not flush the rest
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.length * 2;
      this.entries.delete(key);
    }
    this.entries.set(key, body);
    this.bytes += body.length * 2;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length * 2;
    }
  }
}

/** Answers from the cache, or builds, serialises, stores and sends the response. */
export async function sendCached(
  cache: ResponseCache,
  request: FastifyRequest,
  reply: FastifyReply,
  version: number,
  build: () => Promise<object>,
): Promise<FastifyReply> {
  const key = ResponseCache.key(request.url.split('?')[0] ?? '', request.query as Record<string, unknown>, version);
  let body = cache.get(key);
  if (body === undefined) {
    body = JSON.stringify(await build());
    cache.set(key, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}
