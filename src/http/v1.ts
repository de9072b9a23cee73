import type { FastifyInstance } from 'fastify';
import type { CatalogReader } from '../store/catalog-store.js';
import type { Authenticator } from '../tokens/authenticator.js';
import { errors } from '../errors.js';
import { authHook } from './auth.js';
import { receivedPath } from './errors.js';
import type { ResponseCache } from './response-cache.js';
import { foodRoutes } from './routes/foods.js';
import { namedRecordRoutes } from './routes/named-records.js';

export interface V1Options {
  readonly reader: CatalogReader;
  readonly auth: Authenticator;
  /** Collection answers of this app (shared with /metrics, which reports its hits). */
  readonly cache: ResponseCache;
}

/**
 * The JSON interface, registered with `{ prefix: '/v1' }`. Authentication, IP locks and quotas
 * are a hook of this plugin (Fastify encapsulation), so they run for every request the router
 * sends here, to a route or to this plugin's own 404 and 405, whatever spelling of the URL
 * (percent-escapes, absolute-form, case of the escapes) the router decoded to reach it.
 */
export function v1Routes(v1: FastifyInstance, options: V1Options, done: (error?: Error) => void): void {
  v1.addHook('onRequest', authHook(options.auth));
  v1.setNotFoundHandler((request) => {
    throw errors.routeNotFound(receivedPath(request));
  });
  foodRoutes(v1, options.reader, options.cache);
  namedRecordRoutes(v1, options.reader, options.cache);
  done();
}
