import cluster from 'node:cluster';
import { loadConfig, type Config } from '../config.js';
import { startServer } from '../server.js';
import { openStore } from '../store/open-store.js';
import { UsageError } from './usage.js';

/**
 * With --workers N, the primary forks N processes that share the port (node:cluster), each
 * with its own store connection; it forwards SIGTERM/SIGINT and exits when they have all
 * finished their requests. A worker that dies unexpectedly is replaced.
 */
function runPrimary(config: Config): void {
  let stopping = false;
  const fork = (): void => {
    cluster.fork();
  };
  for (let i = 0; i < config.workers; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    fork();
  });
  const stop = (signal: NodeJS.Signals): void => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** Serves until SIGTERM/SIGINT; -1 tells main not to set an exit code (the signal handler exits). */
export async function serveCommand(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const config = loadConfig(values);
  if (config.workers > 1 && cluster.isPrimary) {
    // Opening for writing brings an older database up to date, which can take a while: done
    // once here, workers do not queue behind it for the write lock (and fail and restart).
    await openStore(config, { readonly: false }).close();
    runPrimary(config);
    return -1;
  }
  const server = await startServer(config);
  process.stderr.write(`foodlookup listening on ${server.url} (JSON ${server.url}/v1, SOAP ${server.url}/soap/1.2)\n`);
  return -1;
}
