import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { openStore } from './store/open-store.js';
import { openAuthenticator } from './tokens/open.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  /** The address it listens on, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  close(): Promise<void>;
}

/** Opens the store, builds the app and listens; SIGTERM/SIGINT close it gracefully. */
export async function startServer(config: Config, options: { handleSignals?: boolean } = {}): Promise<RunningServer> {
  const store = openStore(config, { readonly: false });
  const auth = openAuthenticator(config, store);
  const app = await buildApp(config, { store, auth });
  auth.useLogger(app.log);
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
