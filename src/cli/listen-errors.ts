import { createServer } from 'node:net';
import type { Config } from '../config.js';

/** The one message `serve` and `start` give when their port is taken. */
export function addressInUse(host: string, port: number, what = 'port'): string {
  return `${what} ${port} on ${host} is already in use (another foodlookup, or another server): stop it, or choose another port with --port N (PORT)`;
}

export function isAddressInUse(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'EADDRINUSE';
}

/**
 * Whether the service's port can be taken, tried before `serve` forks its workers: so a taken
 * port is one message from the primary, not one from every worker.
 */
export function portProblem(config: Config): Promise<string | undefined> {
  if (config.port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error) => resolve(isAddressInUse(error) ? addressInUse(config.host, config.port) : undefined));
    probe.listen({ host: config.host, port: config.port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
