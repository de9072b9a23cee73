/** The count after one request, and how long until its window ends. */
export interface WindowHit {
  readonly count: number;
  /** Milliseconds until the window ends and the count starts again from zero. */
  readonly resetMs: number;
}

/** Health of the quota counters, for operators (logged with outages; `metrics()` of the authenticator). */
export interface CounterMetrics {
  readonly backend: 'memory' | 'redis';
  /** Redis only: false while Redis is unreachable and requests are counted in process. */
  readonly redisAvailable?: boolean;
  /** Redis only: how many times Redis became unreachable since the process started. */
  readonly redisOutages: number;
  /** Redis only: requests counted in process because Redis was unreachable (fail open). */
  readonly failOpenHits: number;
}

/**
 * Fixed-window request counters, one per key. A window starts with the first request after the
 * previous one ended and lasts `windowMs`; no clock needs to agree between replicas, because the
 * shared store (Redis) keeps the window's end.
 */
export interface QuotaCounters {
  /** Counts one request for `key` and returns the window's count including it. */
  hit(key: string, windowMs: number): Promise<WindowHit>;
  metrics(): CounterMetrics;
  /** Where outages are reported, for counters that can have them (set once the app's logger exists). */
  useLogger?(logger: TokenLogger): void;
  /** Opens a connection before the first request, for counters that have one (waits a bounded time, never throws). */
  connect?(): Promise<void>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** Minimal logger surface (Fastify's/pino's logger fits it); messages never carry a secret. */
export interface TokenLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentLogger: TokenLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Counters in this process: the default, and the fallback while Redis is unreachable. */
export class MemoryCounters implements QuotaCounters {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private nextSweep: number;

  constructor(private readonly now: () => number = Date.now, private readonly sweepEveryMs = 60_000) {
    this.nextSweep = now() + sweepEveryMs;
  }

  hit(key: string, windowMs: number): Promise<WindowHit> {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return Promise.resolve({ count: window.count, resetMs: window.endsAt - now });
  }

  /** Number of live windows (tests check that ended ones are dropped). */
  get size(): number {
    return this.windows.size;
  }

  /** Drops ended windows, so tokens that stopped calling hold no memory. */
  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.nextSweep = now + this.sweepEveryMs;
  }

  metrics(): CounterMetrics {
    return { backend: 'memory', redisOutages: 0, failOpenHits: 0 };
  }

  close(): Promise<void> {
    this.windows.clear();
    return Promise.resolve();
  }
}
