import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { openStore } from './store/open-store.js';
import type { CatalogStore } from './store/catalog-store.js';
import { openAuthenticator } from './tokens/open.js';
import cluster from 'node:cluster';
import { listenMetrics, metricsRegistryOf, shareMetricsWithPrimary } from './http/metrics.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  /** The address it listens on, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * SQLite's page cache of a serving process. Searches run on the importer's search data in
 * memory and fetch a page's rows by rid; rows missed here come from the OS page cache, which
 * the workers share, so a larger private cache mostly adds to each worker's memory.
 */
const SERVING_CACHE_MIB = 16;

/** The store as a serving process opens it (writable: access tokens record their last use). */
export function openServingStore(config: Config): CatalogStore {
  return openStore(config, { readonly: false, cacheMiB: SERVING_CACHE_MIB });
}

/**
 * Metrics (`--metrics-port`): a worker of `serve` hands its metrics to the primary, which serves
 * them all on that port; a lone process (`start`, tests) serves its own. Closed with the app;
 * started before the app listens (hooks cannot be added after).
 */
async function serveMetrics(app: FastifyInstance, config: Config): Promise<void> {
  const registry = metricsRegistryOf(app);
  if (registry === undefined || config.metricsPort === undefined) return;
  if (cluster.isWorker) {
    shareMetricsWithPrimary(registry);
    return;
  }
  const server = await listenMetrics(config.host, config.metricsPort, async () => ({ text: await registry.metrics(), contentType: registry.contentType }));
  const address = server.address();
  metricsPorts.set(app, typeof address === 'object' && address ? address.port : config.metricsPort);
  app.addHook('onClose', () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
}

const metricsPorts = new WeakMap<FastifyInstance, number>();

/** The port the app's own metrics server listens on (when it has one): tests give port 0. */
export function metricsPortOf(app: FastifyInstance): number | undefined {
  return metricsPorts.get(app);
}

/** Opens the store, builds the app and listens; SIGTERM/SIGINT close it gracefully. */
export async function startServer(config: Config, options: { handleSignals?: boolean } = {}): Promise<RunningServer> {
  const store = openServingStore(config);
  await store.warm();
  const auth = await openAuthenticator(config, store);
  const app = await buildApp(config, { store, auth });
  auth.useLogger(app.log);
  // The authenticator first: it writes pending last-use times before the store goes.
  app.addHook('onClose', async () => {
    await auth.close();
    await store.close();
  });
  await serveMetrics(app, config);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= app.close());
  if (options.handleSignals ?? true) {
    const stop = (signal: string): void => {
      app.log.info({ signal }, 'stopping: finishing in-flight requests');
      close().then(() => process.exit(0), (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
  return { app, url: `http://${host}:${port}`, close };
}
