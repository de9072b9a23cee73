import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** Why the Redis tests skip: shown by `t.skip`, so a skipped run says what to install. */
export const NO_REDIS =
  'no Redis: redis-server is not installed (e.g. apt-get install redis-server) and nothing answers on 127.0.0.1:6379';

/** The redis-server binary: $REDIS_SERVER, or the first on PATH; undefined when not installed. */
export function redisServerPath(): string | undefined {
  const candidates = process.env['REDIS_SERVER'] ? [process.env['REDIS_SERVER']] : [];
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) if (dir) candidates.push(join(dir, 'redis-server'));
  candidates.push('/usr/bin/redis-server', '/usr/local/bin/redis-server', '/usr/sbin/redis-server');
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** True when a Redis answers PING on host:port within `timeoutMs` (plain RESP, no client library). */
export function redisAnswers(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d: Buffer) => {
      reply += d.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/** A private redis-server child on its own port, which a test may stop and start again. */
export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  /** Kills it abruptly (SIGKILL: like a crash or a lost network), keeping the port for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port (with no data: persistence is off). */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as with a hung host. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

/** Starts redis-server on a free port (nothing saved to disk); undefined when it is not installed. */
export async function startRedis(): Promise<RedisProcess | undefined> {
  const binary = redisServerPath();
  if (!binary) return undefined;
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const proc = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    child = proc;
    const deadline = Date.now() + 10_000;
    while (!(await redisAnswers(port))) {
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };
  await start();
  const signal = (name: NodeJS.Signals): void => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(name);
  };
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') };
}

/** A Redis for tests that only need one running: $TEST_REDIS_URL, the machine's on 6379, or a private one. */
export interface SharedRedis {
  readonly url: string;
  /** Stops it if this process started it; leaves a machine's Redis alone. */
  release(): Promise<void>;
}

export async function sharedRedis(): Promise<SharedRedis | undefined> {
  const given = process.env['TEST_REDIS_URL'];
  if (given) return { url: given, release: () => Promise.resolve() };
  if (await redisAnswers(6379)) return { url: 'redis://127.0.0.1:6379', release: () => Promise.resolve() };
  const own = await startRedis();
  return own ? { url: own.url, release: () => own.stop() } : undefined;
}
