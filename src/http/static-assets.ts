import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { refuseOtherMethods } from './get-route.js';
import { COMPRESS_MIN_BYTES, compressBody, negotiatedEncoding, type Encoding } from './compression.js';

/** A fixed body served as is: read (or made) on first request, compressed once per encoding. */
export interface Asset {
  readonly url: string;
  readonly contentType: string;
  /** A file's path, or the body itself. */
  readonly source: { readonly file: string } | { readonly text: () => string };
  /** Cache-Control: assets named with a version may be cached for a day; pages are revalidated. */
  readonly maxAgeSeconds?: number;
}

/**
 * Routes for the fixed files of /docs (the renderer bundled from npm) and / (the explorer): no
 * token, no CDN. Bodies are kept in memory once asked for, with their compressed forms, so a
 * 1.7 MB script is not compressed again for every browser.
 */
export function assetRoutes(app: FastifyInstance, assets: readonly Asset[]): void {
  for (const asset of assets) {
    let body: Buffer | undefined;
    const packed = new Map<Encoding, Buffer>();
    app.get(asset.url, (request, reply) => {
      body ??= 'file' in asset.source ? readFileSync(asset.source.file) : Buffer.from(asset.source.text());
      void reply.type(asset.contentType)
        .header('Cache-Control', asset.maxAgeSeconds ? `public, max-age=${asset.maxAgeSeconds}` : 'no-cache');
      const encoding = body.length < COMPRESS_MIN_BYTES ? undefined : negotiatedEncoding(request.headers['accept-encoding']);
      if (encoding === undefined) return reply.send(body);
      let compressed = packed.get(encoding);
      if (compressed === undefined) {
        compressed = compressBody(body, encoding);
        packed.set(encoding, compressed);
      }
      return reply.header('Content-Encoding', encoding).header('Vary', 'Accept-Encoding').send(compressed);
    });
    refuseOtherMethods(app, asset.url, ['GET', 'HEAD']);
  }
}
