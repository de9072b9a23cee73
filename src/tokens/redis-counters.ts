import { createHash } from 'node:crypto';
import { createClient } from 'redis';
import { MemoryCounters, silentLogger, type CounterMetrics, type QuotaCounters, type TokenLogger, type WindowHit } from './counters.js';

/**
 * One round trip per request: count, and start the window on its first request. PTTL < 0 also
 * repairs a key that lost its expiry (it would otherwise count forever). Returns {count, ms left}.
 */
const SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;
const SCRIPT_SHA = createHash('sha1').update(SCRIPT).digest('hex');

type Client = ReturnType<typeof createClient>;

/**
 * The longest a request waits for Redis (docs/tokens.md): then it is counted in process (fail
 * open) and Redis is probed in the background. node-redis's own command timeout cannot bound
 * this: it covers only a command waiting to be written, never one written to a Redis that does
 * not answer (a stopped process, a stalled network), which waited for as long as that lasted.
 */
export const QUOTA_WAIT_MS = 80;

export interface RedisCountersOptions {
  readonly url: string;
  /** Prepended to every key; token ids are random uuids, so one Redis can serve several databases. */
  readonly keyPrefix?: string;
  /** A request never waits longer than this for Redis before it is counted in process (default QUOTA_WAIT_MS). */
  readonly commandTimeoutMs?: number;
  /** How long `connect` (at startup) waits for the first connection; requests never wait for it. */
  readonly connectTimeoutMs?: number;
  /** How often an unreachable Redis is tried again. */
  readonly probeIntervalMs?: number;
  readonly logger?: TokenLogger;
  /** Where requests are counted while Redis is unreachable (default: in process). */
  readonly fallback?: QuotaCounters;
}

/** The address for log lines: host, port and database, never the password of a `redis://user:pass@` URL. */
export function redisTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.length > 1 ? parsed.pathname : ''}`;
  } catch {
    return '(invalid REDIS_URL)';
  }
}

function reason(error: unknown): string {
  if (error instanceof Error) return (error as { code?: string }).code ?? (error.message || error.name);
  return String(error);
}

/**
 * `promise`, or a rejection after `ms`. The rejection waits for the poll phase that follows the
 * timer (setImmediate): when this process itself was busy past the deadline, a reply that
 * arrived meanwhile is read first and wins, rather than Redis being taken for unreachable.
 */
function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new Error(`${what} timed out after ${ms} ms`)));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    clearImmediate(immediate);
  });
}

/**
 * Quota counters shared by every replica through Redis (REDIS_URL). Connects on first use.
 * When Redis cannot be reached the service keeps answering (fail open): requests are counted in
 * process instead, so each replica still enforces the quota on what it sees; the outage is logged
 * once, counted in metrics, and Redis is tried again in the background until it answers.
 */
export class RedisCounters implements QuotaCounters {
  private readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly probeIntervalMs: number;
  private readonly fallback: QuotaCounters;
  private logger: TokenLogger;
  private client: Client | undefined;
  private firstConnection: Promise<void> | undefined;
  private available = true;
  private outages = 0;
  private failOpenHits = 0;
  private hitsThisOutage = 0;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;

  constructor(private readonly options: RedisCountersOptions) {
    // Checked at startup, so a typo fails the start rather than every request's counting.
    // (The message leaves the URL out: it may hold a password.)
    let protocol: string | undefined;
    try {
      protocol = new URL(options.url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
    this.keyPrefix = options.keyPrefix ?? 'foodlookup:quota:';
    this.commandTimeoutMs = Math.min(options.commandTimeoutMs ?? QUOTA_WAIT_MS, QUOTA_WAIT_MS);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.fallback = options.fallback ?? new MemoryCounters();
    this.logger = options.logger ?? silentLogger;
  }

  /** The logger is known only once the app exists; outages before that go nowhere. */
  useLogger(logger: TokenLogger): void {
    this.logger = logger;
  }

  /** Opens the connection before the first request, waiting for it at most connectTimeoutMs (never throws). */
  async connect(): Promise<void> {
    if (this.client || this.closed) return;
    this.createClient();
    await withTimeout(this.firstConnection!, this.connectTimeoutMs, 'connecting to redis').catch(() => undefined);
  }

  async hit(key: string, windowMs: number): Promise<WindowHit> {
    if (this.available && !this.closed) {
      try {
        return await withTimeout(this.count(this.connected(), this.keyPrefix + key, windowMs), this.commandTimeoutMs, 'redis quota count');
      } catch (error) {
        this.unavailable(error);
      }
    }
    this.failOpenHits += 1;
    this.hitsThisOutage += 1;
    return this.fallback.hit(key, windowMs);
  }

  metrics(): CounterMetrics {
    return { backend: 'redis', redisAvailable: this.available, redisOutages: this.outages, failOpenHits: this.failOpenHits };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) client.destroy();
    await this.fallback.close();
  }

  private createClient(): Client {
    const client = createClient({
      url: this.options.url,
      // Fail fast while disconnected instead of queueing: a queued command would hold its request.
      disableOfflineQueue: true,
      commandOptions: { timeout: this.commandTimeoutMs },
      socket: {
        connectTimeout: this.connectTimeoutMs,
        // Keep trying for as long as the process lives, at most every 2 s: recovery needs no restart.
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2000),
      },
    });
    // node-redis emits an error for every failed (re)connection attempt: only the first of an outage is logged.
    client.on('error', (error: unknown) => this.unavailable(error));
    client.on('ready', () => this.reachable());
    this.client = client;
    // Settles on the first success or failure; connect() itself stays pending while it retries.
    this.firstConnection = new Promise<void>((resolve) => {
      client.once('ready', () => resolve());
      client.once('error', () => resolve());
    });
    client.connect().catch(() => undefined);
    return client;
  }

  /** The client when it is ready; a request never waits for a connection (connect() did, at startup). */
  private connected(): Client {
    const client = this.client ?? this.createClient();
    if (!client.isReady) throw new Error('not connected');
    return client;
  }

  private async count(client: Client, key: string, windowMs: number): Promise<WindowHit> {
    const args = { keys: [key], arguments: [String(windowMs)] };
    let reply: unknown;
    try {
      reply = await client.evalSha(SCRIPT_SHA, args);
    } catch (error) {
      // Redis forgets scripts when it restarts: send the script itself once, which caches it again.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await client.eval(SCRIPT, args);
    }
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw new Error('unexpected reply from the quota script');
    }
    return { count: reply[0], resetMs: Math.max(0, reply[1]) };
  }

  private unavailable(error: unknown): void {
    if (!this.available || this.closed) return;
    this.available = false;
    this.outages += 1;
    this.hitsThisOutage = 0;
    this.logger.warn(
      { redis: redisTarget(this.options.url), reason: reason(error), redisOutages: this.outages },
      'redis unreachable: quotas are counted in this process until it answers again (fail open)',
    );
    clearInterval(this.probe);
    this.probe = setInterval(() => void this.tryAgain(), this.probeIntervalMs);
    this.probe.unref();
  }

  /** Covers a Redis that is connected but not answering, which never emits 'ready' again. */
  private async tryAgain(): Promise<void> {
    const client = this.client;
    if (this.probing || !client?.isReady) return;
    this.probing = true;
    try {
      await client.ping();
      this.reachable();
    } catch {
      // Still down: the next probe tries again.
    } finally {
      this.probing = false;
    }
  }

  private reachable(): void {
    if (this.available || this.closed) return;
    this.available = true;
    clearInterval(this.probe);
    this.probe = undefined;
    this.logger.info(
      { redis: redisTarget(this.options.url), failOpenHits: this.hitsThisOutage, redisOutages: this.outages },
      'redis reachable again: quotas are shared again',
    );
  }
}
