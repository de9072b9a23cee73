import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { openStore } from './store/open-store.js';
import type { CatalogStore } from './store/catalog-store.js';
import { openAuthenticator } from './tokens/open.js';
import { databaseAccess } from './store/sqlite/file-access.js';

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

/**
 * Where the served database cannot be written: a sentence for the operator, said at startup
 * (the service only reads; what it loses is recording tokens' last use).
 */
export function readOnlyNotice(config: Config): string | undefined {
  if (config.databaseUrl) return undefined;
  const access = databaseAccess(config.dbPath);
  if (!access.exists) {
    throw new Error(`no database at ${config.dbPath}: load one with 'foodlookup import <format> <path…> --db ${config.dbPath}', ` +
      "or run 'foodlookup start' to build the bundled USDA catalogue");
  }
  return access.readOnlyBecause === undefined
    ? undefined
    : `serving ${config.dbPath} read-only, as ${access.readOnlyBecause}: access tokens cannot be created there and their last use is not recorded`;
}

/**
 * The store as a serving process opens it: writable (access tokens record their last use), or
 * read-only where the file or its folder is; a missing file is an error naming it.
 */
export function openServingStore(config: Config): CatalogStore {
  const readonly = readOnlyNotice(config) !== undefined;
  return openStore(config, { readonly, cacheMiB: SERVING_CACHE_MIB });
}

/** Opens the store, builds the app and listens; SIGTERM/SIGINT close it gracefully. */
export async function startServer(config: Config, options: { handleSignals?: boolean } = {}): Promise<RunningServer> {
  const store = openServingStore(config);
  await store.warm();
  const auth = await openAuthenticator(config, store);
  const app = await buildApp(config, { store, auth });
  auth.useLogger(app.log);
  await auth.connect();
  const notice = readOnlyNotice(config);
  if (notice !== undefined) app.log.warn({ db: config.dbPath }, notice);
  // The authenticator first: it writes pending last-use times before the store goes.
  app.addHook('onClose', async () => {
    await auth.close();
    await store.close();
  });
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
