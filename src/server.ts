import { Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { answersQueuedBehind } from './http/framing.js';
import { openStore } from './store/open-store.js';
import type { CatalogStore } from './store/catalog-store.js';
import { openAuthenticator } from './tokens/open.js';
import { readOnlyNotice } from './store/sqlite/file-access.js';
import cluster from 'node:cluster';
import { settlesWithin } from './deadline.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  /** The address it listens on, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * SQLite's page cache of a serving process. Searches run on the importer's search data in
 * memory and fetch a page's rows by rid; a serving process reads the file through a memory map
 * (`mapped`), so the pages it reads are the OS page cache's, which the workers share, and this
 * cache holds what SQLite makes for itself (its sorter spills past this size).
 */
const SERVING_CACHE_MIB = 16;

/**
 * The store as a serving process opens it: writable (access tokens record their last use), or
 * read-only where the file or its folder is; a missing file is an error naming it.
 */
export async function openServingStore(config: Config): Promise<CatalogStore> {
  const readonly = readOnlyNotice(config) !== undefined;
  return openStore(config, { readonly, cacheMiB: SERVING_CACHE_MIB, mapped: true });
}

/** How long a connection accepted before the signal has for its request to arrive before an idle one is closed. */
export const DRAIN_GRACE_MS = 100;
/** At most this long is spent taking in the connections the kernel had completed when the signal came. */
export const DRAIN_ACCEPT_MS = 5_000;
/** The listener closes once this long (and a turn of the loop) has passed without a new connection. */
export const DRAIN_QUIET_MS = 25;
/** Requests still unfinished this long after the signal are cut off (a stalled client cannot hold the exit). */
export const DRAIN_TIMEOUT_MS = 15_000;
/**
 * After the requests, the store and the token store close within this: last-use times written,
 * connections ended (each of PostgreSQL's waits at most 2 s for the server's answer).
 */
export const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Closing without losing a request that reached the process. Node's `server.close()` stops
 * listening and closes at once every connection with no request in progress: the connections
 * the kernel had completed but the process had not accepted yet were reset (libuv accepts one
 * connection per turn of the loop, so a busy server has a queue of them), and those whose
 * request sat unread in the socket's buffer were closed unanswered. Both were lost when the
 * service stopped under load. So the listener stays open until no connection has come for
 * DRAIN_QUIET_MS and a turn of the loop (the kernel's queue is empty, and with several workers
 * the primary has handed over what it had; at most DRAIN_ACCEPT_MS), then it alone is closed, and
 * the connections get DRAIN_GRACE_MS for what is on its way; then Fastify closes the idle ones
 * and waits for the rest. Everything answered while closing carries `Connection: close`.
 */
function drainOnClose(app: FastifyInstance): void {
  let accepted = 0;
  let draining = false;
  app.server.on('connection', () => accepted++);
  // From the signal on, a connection's last answer says `Connection: close`, so that no client
  // sends another request on it, only for it to be closed unread; answers with pipelined
  // requests queued behind them keep the connection (Node drops what is queued after a close).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining) {
      if (answersQueuedBehind(reply.raw)) reply.raw.removeHeader('connection');
      else void reply.header('connection', 'close');
    }
    return payload;
  });
  // Resolves in the check phase of the loop's next turn, so after that turn's poll.
  const afterPoll = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  app.addHook('preClose', async () => {
    draining = true;
    const hardStop = setTimeout(() => app.server.closeAllConnections(), DRAIN_TIMEOUT_MS);
    hardStop.unref();
    const acceptUntil = performance.now() + DRAIN_ACCEPT_MS;
    let before: number;
    do {
      before = accepted;
      await new Promise((resolve) => setTimeout(resolve, DRAIN_QUIET_MS));
      await afterPoll();
    } while (accepted !== before && performance.now() < acceptUntil);
    // net.Server's own close: stops listening only (http.Server's also closes idle connections).
    NetServer.prototype.close.call(app.server);
    await new Promise((resolve) => setTimeout(resolve, DRAIN_GRACE_MS));
    // Timers run before the poll: a busy loop may not have read what arrived during the grace yet.
    await afterPoll();
  });
}

/**
 * Metrics (`--metrics-port`): a worker of `serve` hands its metrics to the primary, which serves
 * them all on that port; a lone process (`start`, tests) serves its own. Closed with the app;
 * started before the app listens (hooks cannot be added after).
 */
async function serveMetrics(app: FastifyInstance, config: Config): Promise<void> {
  if (config.metricsPort === undefined) return;
  const { listenMetrics, metricsRegistryOf, shareMetricsWithPrimary } = await import('./http/metrics.js');
  const registry = metricsRegistryOf(app);
  if (registry === undefined) return;
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
  const store = await openServingStore(config);
  await store.warm();
  const auth = await openAuthenticator(config, store);
  const app = await buildApp(config, { store, auth });
  auth.useLogger(app.log);
  store.useLogger?.(app.log);
  await auth.connect();
  const notice = readOnlyNotice(config);
  if (notice !== undefined) app.log.warn({ db: config.dbPath }, notice);
  drainOnClose(app);
  // The authenticator first: it writes pending last-use times before the store goes. A database
  // or Redis that hangs rather than dies never answers its goodbye: the process ends regardless.
  app.addHook('onClose', async () => {
    const closed = (async (): Promise<void> => {
      await auth.close();
      await store.close();
    })();
    if (!(await settlesWithin(closed, CLOSE_TIMEOUT_MS))) {
      app.log.warn({ afterMs: CLOSE_TIMEOUT_MS }, 'stopping without a goodbye from the store or Redis: they did not answer');
      return;
    }
    await closed;
  });
  await serveMetrics(app, config);
  await app.listen({ host: config.host, port: config.port });
  store.listening?.();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= app.close());
  if (options.handleSignals ?? true) {
    let stopping = false;
    const stop = (signal: string): void => {
      // Stopping already: a second signal (the process group's, then the primary's forwarded
      // one) must not end the process by default action in the middle of the drain.
      if (stopping) return;
      stopping = true;
      app.log.info({ signal }, 'stopping: finishing in-flight requests');
      close().then(() => process.exit(0), (error: unknown) => {
        app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  }
  return { app, url: `http://${host}:${port}`, close };
}
