import type { FastifyReply, FastifyRequest } from 'fastify';
import { RESPONSE_CACHE_MIB } from '../config.js';
import type { CatalogState } from '../store/catalog-store.js';
import { answerIfNotModified } from './caching.js';
import { COMPRESS_MIN_BYTES, compressBody, negotiatedEncoding } from './compression.js';

/** FNV-1a over the UTF-16 code units: a 32-bit fingerprint of a cache key. */
function fingerprint(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * Serialised collection responses keyed by the request as sent and the catalogue version.
 * The catalogue is read-only between imports and every import that changes something moves
 * the version, so an entry can never be stale: a new version simply misses. Bodies are kept as
 * UTF-8 bytes, sent as they are. Bounded by entries and bytes, least recently used out first.
 *
 * A response is stored when its request comes for the second time (`admit`), as TinyLFU's
 * doorkeeper admits: requests asked once, the bulk of search traffic's long tail, were stored
 * answer by answer (~23 KB each at 1,000,000 foods), pushed out the answers that repeat, and
 * left V8 a Buffer to reclaim for each. On cold full-text traffic (`git log -p bench/README.md`) that was
 * ~35 MiB of a serving process's private memory and half of its full collections.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  /** Fingerprints of requests seen once and not stored, oldest first. */
  private readonly seenOnce = new Set<number>();
  /** Collection requests answered from the cache, and those that were not (metrics.ts reads them). */
  hits = 0;
  misses = 0;

  /** `maxBytes`: the `--response-cache-mb` setting (config.ts); 0 stores nothing. */
  constructor(
    private readonly maxBytes = RESPONSE_CACHE_MIB * 2 ** 20,
    private readonly maxEntries = 10_000,
    private readonly maxSeen = 2 * maxEntries,
  ) {}

  /**
   * Whether a response to this request, just built, should be stored: true when the request
   * was seen before (or a fingerprint collides, which only stores an answer early).
   */
  admit(key: string): boolean {
    if (this.maxBytes === 0) return false;
    const seen = fingerprint(key);
    if (this.seenOnce.delete(seen)) return true;
    this.seenOnce.add(seen);
    if (this.seenOnce.size > this.maxSeen) this.seenOnce.delete(this.seenOnce.values().next().value!);
    return false;
  }

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
 * Answers a collection request from the cache, or builds and sends its body (a JSON text),
 * storing it when the cache admits it. `prepare` parses and validates the request and returns
 * the builder; it runs only on a miss, and before the conditional check, so a bad request is a
 * 400 even when it is conditional. Last-Modified and ETag are the catalogue's.
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
  reply.type('application/json; charset=utf-8');
  if (build === undefined) {
    cache.hits++;
    return sendStored(cache, key, body!, request, reply);
  }
  cache.misses++;
  const text = await build();
  // Not stored: sent as bytes (which @fastify/compress compresses when the client asks). As a
  // string, Fastify's Content-Length and Node's prefixing of the head each copied the body
  // inside V8's heap: at 64 connections of never-seen searches those copies filled the young
  // generation, whose collections then moved the queued requests' objects to the old one.
  if (!cache.admit(key)) return reply.send(Buffer.from(text));
  body = Buffer.from(text);
  cache.set(key, body);
  return sendStored(cache, key, body, request, reply);
}

/**
 * A stored body, compressed when the client asks and it is large enough: the compressed form is
 * stored beside it on first use (its own entry, `key|encoding`), so a cached answer is
 * compressed once, not once per request. Content-Encoding tells @fastify/compress to leave it.
 */
function sendStored(cache: ResponseCache, key: string, body: Buffer, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const accept = request.headers['accept-encoding'];
  const encoding = accept === undefined || body.length < COMPRESS_MIN_BYTES ? undefined : negotiatedEncoding(accept);
  if (encoding === undefined) return reply.send(body);
  const packedKey = `${key}|${encoding}`;
  let packed = cache.get(packedKey);
  if (packed === undefined) {
    packed = compressBody(body, encoding);
    cache.set(packedKey, packed);
  }
  return reply.header('Content-Encoding', encoding).header('Vary', 'Accept-Encoding').send(packed);
}
