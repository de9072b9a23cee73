import { loadConfig } from '../config.js';
import { startServer } from '../server.js';
import { UsageError } from './usage.js';


/** Serves until SIGTERM/SIGINT; -1 tells main not to set an exit code (the signal handler exits). */
export async function serveCommand(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const config = loadConfig(values);
  const server = await startServer(config);
  process.stderr.write(`foodlookup listening on ${server.url} (JSON ${server.url}/v1, SOAP ${server.url}/soap/1.2)\n`);
  return -1;
}
