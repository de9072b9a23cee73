import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import { negotiate } from '@fastify/accept-negotiator';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Bodies smaller than this are sent as they are: a few hundred bytes gain little and cost a compressor call. */
export const COMPRESS_MIN_BYTES = 1024;

/** In order of preference when the client weighs them equally. */
const ENCODINGS: ('br' | 'gzip')[] = ['br', 'gzip'];
export type Encoding = (typeof ENCODINGS)[number];

/** Brotli's quality 4, as @fastify/compress uses: near gzip's speed, smaller output. */
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * gzip or brotli for responses of 1 KiB or more whose client asks (Accept-Encoding), by
 * @fastify/compress; the response cache stores compressed bodies itself (response-cache.ts)
 * and sets Content-Encoding, which the plugin then leaves alone. A client that does not ask
 * gets the body as it is. Must be registered before the routes (it attaches to each route).
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, { global: true, threshold: COMPRESS_MIN_BYTES, encodings: ENCODINGS });
}

/** The encoding to answer with, as @fastify/compress negotiates it; undefined for none. */
export function negotiatedEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (acceptEncoding === undefined || acceptEncoding === '') return undefined;
  return negotiate(acceptEncoding, ENCODINGS) ?? undefined;
}

export function compressBody(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body);
}
