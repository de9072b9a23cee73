import type { Authenticator, AuthResult, RateLimitInfo } from './authenticator.js';
import { silentLogger, type CounterMetrics, type QuotaCounters, type TokenLogger } from './counters.js';
import { AddressRule } from './ip-rules.js';
import { WINDOW_MS, type Quota } from './quota.js';
import { hashSecret, sameDigest } from './secrets.js';
import { StaticTokens } from './static-tokens.js';
import type { TokenCredential, TokenStore } from './token-store.js';

/**
 * The documented bound on revocation (docs/tokens.md): a lookup is cached for at most this long,
 * so a token revoked in the database is refused by every replica within 5 seconds.
 */
export const MAX_CACHE_TTL_MS = 5_000;

/** Longer credentials are refused before hashing: issued tokens are 46 characters. */
const MAX_SECRET_LENGTH = 1024;

const UNAUTHORIZED: AuthResult = { ok: false, reason: 'unauthorized' };
const FORBIDDEN: AuthResult = { ok: false, reason: 'forbidden' };

/** What a request needs to know about a stored token, parsed once per cache period. */
interface AccessRule {
  readonly id: string;
  readonly revoked: boolean;
  readonly addresses?: AddressRule;
  readonly quota?: Quota;
}

/** A map that forgets entries after a time and holds at most `capacity` of them (oldest go first). */
class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private readonly capacity: number) {}

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.entries.delete(key);
    // Map keeps insertion order, so the first key is the oldest entry.
    while (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

export interface TokenAuthenticatorOptions {
  /** Tokens from FOODLOOKUP_TOKENS: accepted from anywhere, without quotas. */
  readonly staticTokens: StaticTokens;
  readonly store: TokenStore;
  readonly counters: QuotaCounters;
  /** How long a lookup (found or not) is reused; at most MAX_CACHE_TTL_MS. */
  readonly cacheTtlMs?: number;
  /** Entries of each cache (known tokens, unknown secrets): a flood of random tokens cannot grow memory. */
  readonly cacheCapacity?: number;
  /** How often last-use times are written (one write per token per period). */
  readonly lastUsedFlushMs?: number;
  readonly logger?: TokenLogger;
  readonly now?: () => number;
}

/** Health and sizes, for operators and tests. */
export interface AuthMetrics {
  readonly cachedTokens: number;
  readonly cachedUnknown: number;
  readonly pendingLastUsed: number;
  readonly counters: CounterMetrics;
}

/**
 * The one access decision for both interfaces (JSON Basic username, SOAP devkey), contract C5:
 * FOODLOOKUP_TOKENS first, then stored tokens (revocation, address allow-list, quota).
 *
 * Cheap per request: one SHA-256, a cache hit (the database is read at most once per token per
 * cache period), and for limited tokens one counter round trip.
 */
export class TokenAuthenticator implements Authenticator {
  private readonly staticTokens: StaticTokens;
  private readonly store: TokenStore;
  private readonly counters: QuotaCounters;
  private readonly ttlMs: number;
  private readonly known: ExpiringMap<AccessRule>;
  /** Digests that matched nothing, cached too: repeated bad credentials do not reach the database. */
  private readonly unknown: ExpiringMap<true>;
  private readonly now: () => number;
  private logger: TokenLogger;
  /** Last request per stored token (valid, from an allowed address), written in batches rather than once per request. */
  private lastUsed = new Map<string, number>();
  private readonly flushTimer: NodeJS.Timeout;
  private closed = false;

  constructor(options: TokenAuthenticatorOptions) {
    this.staticTokens = options.staticTokens;
    this.store = options.store;
    this.counters = options.counters;
    this.ttlMs = Math.min(options.cacheTtlMs ?? MAX_CACHE_TTL_MS, MAX_CACHE_TTL_MS);
    const capacity = options.cacheCapacity ?? 10_000;
    this.known = new ExpiringMap(capacity);
    this.unknown = new ExpiringMap(capacity);
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
    this.flushTimer = setInterval(() => void this.flushLastUsed(), options.lastUsedFlushMs ?? 60_000);
    this.flushTimer.unref();
  }

  /** The app's logger, known only once the app is built. */
  useLogger(logger: TokenLogger): void {
    this.logger = logger;
    this.counters.useLogger?.(logger);
  }

  /** Connects the quota counters (Redis) before serving, so that no request waits for a connection. */
  async connect(): Promise<void> {
    await this.counters.connect?.();
  }

  async authenticate(secret: string | undefined, clientIp: string): Promise<AuthResult> {
    if (secret === undefined || secret.length > MAX_SECRET_LENGTH) return UNAUTHORIZED;
    const digest = hashSecret(secret);
    const staticIndex = this.staticTokens.matchDigest(digest);
    if (staticIndex !== -1) return { ok: true, tokenId: StaticTokens.idOf(staticIndex) };

    const rule = await this.lookup(digest);
    if (!rule || rule.revoked) return UNAUTHORIZED;
    if (rule.addresses && !rule.addresses.allows(clientIp)) return FORBIDDEN;
    if (!this.closed) this.lastUsed.set(rule.id, this.now());
    if (!rule.quota) return { ok: true, tokenId: rule.id };

    const { count, resetMs } = await this.counters.hit(`${rule.id}:${rule.quota.window}`, WINDOW_MS[rule.quota.window]);
    const rateLimit: RateLimitInfo = {
      limit: rule.quota.limit,
      remaining: Math.max(0, rule.quota.limit - count),
      // Whole seconds, never 0: `Retry-After: 0` would invite an immediate retry into the same window.
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    };
    return count > rule.quota.limit ? { ok: false, reason: 'quota', rateLimit } : { ok: true, tokenId: rule.id, rateLimit };
  }

  metrics(): AuthMetrics {
    return {
      cachedTokens: this.known.size,
      cachedUnknown: this.unknown.size,
      pendingLastUsed: this.lastUsed.size,
      counters: this.counters.metrics(),
    };
  }

  /** Writes pending last-use times: one write per token, whatever the number of requests. */
  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = this.lastUsed;
    this.lastUsed = new Map();
    try {
      if (!(await this.store.recordUse(batch)) && !this.closed) {
        // Another writer (an import) holds the database: keep the times for the next flush.
        for (const [id, at] of batch) this.lastUsed.set(id, Math.max(at, this.lastUsed.get(id) ?? 0));
      }
    } catch (error) {
      // Losing a last-use time is harmless; failing requests over it would not be.
      this.logger.error({ err: error instanceof Error ? error.message : String(error), tokens: batch.size }, 'could not record token last use');
    }
  }

  /** Writes pending last-use times, then closes the counters and the token store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.flushTimer);
    await this.flushLastUsed();
    this.known.clear();
    this.unknown.clear();
    await this.counters.close();
    await this.store.close();
  }

  private async lookup(digest: Buffer): Promise<AccessRule | undefined> {
    const key = digest.toString('base64');
    const now = this.now();
    const cached = this.known.get(key, now);
    if (cached) return cached;
    if (this.unknown.get(key, now)) return undefined;
    const found = await this.store.findByHash(digest);
    // The row was found through the hash index; confirming in constant time means the final
    // decision never depends on how many bytes of a hash matched. (The index lookup itself can
    // only reveal something about SHA-256 digests, which gives nothing about a 256-bit secret.)
    if (!found || !sameDigest(found.secretHash, digest)) {
      this.unknown.set(key, true, now + this.ttlMs);
      return undefined;
    }
    const rule = toRule(found);
    this.known.set(key, rule, now + this.ttlMs);
    return rule;
  }
}

function toRule(token: TokenCredential): AccessRule {
  return {
    id: token.id,
    revoked: token.revokedAt !== undefined,
    ...(token.ips.length > 0 ? { addresses: new AddressRule(token.ips) } : {}),
    ...(token.quota ? { quota: token.quota } : {}),
  };
}
