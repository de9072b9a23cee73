import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteTokenStore } from '../../src/store/sqlite/token-store.js';
import { tempDir } from '../helpers/paths.js';
import { MemoryCounters, type TokenLogger } from '../../src/tokens/counters.js';
import { AddressRule, AddressSyntaxError, canonicalCidr, canonicalCidrList, parseClientAddress } from '../../src/tokens/ip-rules.js';
import { formatQuota, parseQuota, QuotaSyntaxError } from '../../src/tokens/quota.js';
import { RedisCounters, redisTarget } from '../../src/tokens/redis-counters.js';
import { generateSecret, hashSecret } from '../../src/tokens/secrets.js';
import { StaticTokens } from '../../src/tokens/static-tokens.js';
import { MAX_CACHE_TTL_MS, TokenAuthenticator } from '../../src/tokens/token-authenticator.js';
import { issueDevelopmentToken, issueToken, revokeToken, TokenInputError } from '../../src/tokens/token-service.js';
import type { TokenStore } from '../../src/tokens/token-store.js';

/** A clock the test moves by hand. */
function clock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

function memoryStore(): SqliteTokenStore {
  return new SqliteTokenStore(new Database(':memory:'));
}

/** Counts the store lookups an authenticator makes. */
function countingLookups(store: TokenStore): { store: TokenStore; lookups: () => number } {
  let n = 0;
  const wrapped: TokenStore = Object.assign(Object.create(store) as TokenStore, {
    findByHash: (hash: Uint8Array) => {
      n += 1;
      return store.findByHash(hash);
    },
  });
  return { store: wrapped, lookups: () => n };
}

function capture(): TokenLogger & { lines: { level: string; details: object; message: string }[] } {
  const lines: { level: string; details: object; message: string }[] = [];
  return {
    lines,
    info: (details, message) => lines.push({ level: 'info', details, message }),
    warn: (details, message) => lines.push({ level: 'warn', details, message }),
    error: (details, message) => lines.push({ level: 'error', details, message }),
  };
}

describe('token secrets', () => {
  test('a token is fl_ and 32 random bytes in base64url, different every time', () => {
    const a = generateSecret();
    assert.match(a, /^fl_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(a.slice(3), 'base64url').length, 32);
    assert.notEqual(a, generateSecret());
  });

  test('the stored digest is the SHA-256 of the token', () => {
    assert.deepEqual(hashSecret('abc'), createHash('sha256').update('abc').digest());
  });

  test('FOODLOOKUP_TOKENS are matched by digest', () => {
    const tokens = new StaticTokens(['one', 'two']);
    assert.equal(tokens.matchDigest(hashSecret('two')), 1);
    assert.equal(tokens.match('three'), -1);
  });
});

describe('quota syntax', () => {
  test('accepts N/minute, N/hour and N/day', () => {
    assert.deepEqual(parseQuota('100/day'), { limit: 100, window: 'day' });
    assert.deepEqual(parseQuota(' 5 / Hour '), { limit: 5, window: 'hour' });
    assert.equal(formatQuota(parseQuota('60/minute')), '60/minute');
  });

  test('rejects other units, zero, fractions and missing parts', () => {
    for (const bad of ['5/week', '0/day', '1.5/hour', '/day', '5', 'day', '-1/day', '99999999999/day', '5/minutes']) {
      assert.throws(() => parseQuota(bad), QuotaSyntaxError, bad);
    }
  });
});

describe('address allow-lists', () => {
  test('addresses and blocks are stored as their network and prefix', () => {
    assert.equal(canonicalCidr('203.0.113.7'), '203.0.113.7/32');
    assert.equal(canonicalCidr('10.1.2.3/8'), '10.0.0.0/8');
    assert.equal(canonicalCidr('2001:DB8:0:0::1/32'), '2001:db8::/32');
    assert.equal(canonicalCidr('::1'), '::1/128');
    assert.equal(canonicalCidr('::ffff:192.168.1.0/120'), '192.168.1.0/24');
    assert.deepEqual(canonicalCidrList('10.0.0.1, 10.0.0.1 ,,::1'), ['10.0.0.1/32', '::1/128']);
  });

  test('rejects what is not a usual address or block', () => {
    for (const bad of ['10.1', '0x0a.0.0.1', '300.1.1.1', '10.0.0.0/33', '::/129', '10.0.0.0/x', 'localhost', 'fe80::1%eth0', '']) {
      assert.throws(() => canonicalCidr(bad), AddressSyntaxError, bad);
    }
  });

  test('matches IPv4 and IPv6 clients against their own kind of block', () => {
    const rule = new AddressRule(['203.0.113.0/24', '2001:db8::/32']);
    assert.equal(rule.allows('203.0.113.200'), true);
    assert.equal(rule.allows('203.0.114.1'), false);
    assert.equal(rule.allows('2001:db8:1::5'), true);
    assert.equal(rule.allows('2001:db9::5'), false);
    assert.equal(rule.allows('::1'), false);
  });

  test('an IPv4 client on a dual-stack socket (::ffff:a.b.c.d) matches IPv4 blocks', () => {
    assert.equal(parseClientAddress('::ffff:127.0.0.1')?.toString(), '127.0.0.1');
    assert.equal(new AddressRule(['127.0.0.0/8']).allows('::ffff:127.0.0.1'), true);
  });

  test('a link-local client with a scope id is matched without it; garbage never matches', () => {
    assert.equal(new AddressRule(['fe80::/10']).allows('fe80::1%eth0'), true);
    assert.equal(new AddressRule(['0.0.0.0/0', '::/0']).allows('not-an-ip'), false);
    assert.equal(new AddressRule(['0.0.0.0/0', '::/0']).allows(''), false);
  });
});

describe('in-process counters', () => {
  test('count within a fixed window that starts with its first request, then start again', async () => {
    const c = clock();
    const counters = new MemoryCounters(c.now);
    assert.deepEqual(await counters.hit('a', 60_000), { count: 1, resetMs: 60_000 });
    c.advance(59_000);
    assert.deepEqual(await counters.hit('a', 60_000), { count: 2, resetMs: 1_000 });
    assert.deepEqual(await counters.hit('b', 60_000), { count: 1, resetMs: 60_000 });
    c.advance(1_000);
    assert.deepEqual(await counters.hit('a', 60_000), { count: 1, resetMs: 60_000 });
  });

  test('ended windows are dropped, so idle tokens hold no memory', async () => {
    const c = clock();
    const counters = new MemoryCounters(c.now, 1_000);
    for (let i = 0; i < 100; i++) await counters.hit(`k${i}`, 500);
    c.advance(1_000);
    await counters.hit('fresh', 500);
    assert.equal(counters.size, 1);
  });
});

describe('token store (SQLite)', () => {
  test('stores the hash, never the secret; listings carry no hash', async () => {
    const db = new Database(':memory:');
    const store = new SqliteTokenStore(db);
    const { token, secret } = await issueToken(store, { name: 'ci', ips: '10.0.0.0/8', quota: '5/minute' });
    const rows = db.prepare('SELECT * FROM access_tokens').all() as Record<string, unknown>[];
    const raw = rows.flatMap((row) => Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : String(v)))).join(' ');
    assert.equal(raw.includes(secret), false);
    assert.equal(raw.includes(hashSecret(secret).toString('hex')), true);
    const [listed] = await store.list();
    assert.deepEqual(listed, token);
    assert.deepEqual(Object.keys(listed ?? {}).sort(), ['createdAt', 'id', 'ips', 'name', 'quota']);
    const found = await store.findByHash(hashSecret(secret));
    assert.equal(found?.id, token.id);
  });

  test('last-use times only move forward, one write for many tokens', async () => {
    const store = memoryStore();
    const a = (await issueToken(store, {})).token;
    const b = (await issueToken(store, {})).token;
    assert.equal(await store.recordUse(new Map([[a.id, 2000], [b.id, 1000]])), true);
    await store.recordUse(new Map([[a.id, 1500]]));
    assert.equal((await store.get(a.id))?.lastUsedAt, 2000);
    assert.equal((await store.get(b.id))?.lastUsedAt, 1000);
  });

  test('while another writer (an import) holds the database, last use is kept for later, not waited for', async () => {
    const tmp = tempDir();
    const path = join(tmp.dir, 'tokens.db');
    const store = SqliteTokenStore.open(path, { create: true, busyTimeoutMs: 0 });
    const other = new Database(path);
    try {
      const { token } = await issueToken(store, {});
      other.exec('BEGIN IMMEDIATE');
      const started = performance.now();
      assert.equal(await store.recordUse(new Map([[token.id, 1234]])), false);
      assert.ok(performance.now() - started < 1000);
      other.exec('COMMIT');
      assert.equal(await store.recordUse(new Map([[token.id, 1234]])), true);
      assert.equal((await store.get(token.id))?.lastUsedAt, 1234);
    } finally {
      other.close();
      await store.close();
      tmp.cleanup();
    }
  });

  test('revoking is by id, case-insensitive, and idempotent', async () => {
    const store = memoryStore();
    const { token } = await issueToken(store, { name: 'x' });
    assert.equal((await revokeToken(store, token.id.toUpperCase(), 42)).outcome, 'revoked');
    const again = await revokeToken(store, token.id, 99);
    assert.equal(again.outcome, 'already-revoked');
    assert.equal(again.outcome === 'already-revoked' ? again.token.revokedAt : 0, 42);
    assert.equal((await revokeToken(store, '00000000-0000-4000-8000-000000000000')).outcome, 'not-found');
  });

  test('operator input is checked before anything is stored', async () => {
    const store = memoryStore();
    await assert.rejects(issueToken(store, { ips: '10.0.0.0/99' }), TokenInputError);
    await assert.rejects(issueToken(store, { ips: ' , ' }), TokenInputError);
    await assert.rejects(issueToken(store, { quota: '10/fortnight' }), TokenInputError);
    await assert.rejects(issueToken(store, { name: 'bad\u001b[2Jname' }), TokenInputError);
    assert.equal(await store.count(), 0);
  });

  test('the development token is issued only into an empty store', async () => {
    const store = memoryStore();
    const first = await issueDevelopmentToken(store);
    assert.equal(first?.token.name, 'development');
    assert.equal(await issueDevelopmentToken(store), undefined);
  });
});

describe('the authenticator', () => {
  function setup(options: { ttl?: number; capacity?: number } = {}) {
    const c = clock();
    const base = memoryStore();
    const { store, lookups } = countingLookups(base);
    const auth = new TokenAuthenticator({
      staticTokens: new StaticTokens(['env-token']),
      store,
      counters: new MemoryCounters(c.now),
      now: c.now,
      ...(options.ttl !== undefined ? { cacheTtlMs: options.ttl } : {}),
      ...(options.capacity !== undefined ? { cacheCapacity: options.capacity } : {}),
      lastUsedFlushMs: 3_600_000,
    });
    return { c, base, auth, lookups };
  }

  test('FOODLOOKUP_TOKENS pass from anywhere without rate-limit information', async () => {
    const { auth } = setup();
    assert.deepEqual(await auth.authenticate('env-token', '192.0.2.1'), { ok: true, tokenId: 'env:0' });
    await auth.close();
  });

  test('no credential, an unknown one, or an absurdly long one is unauthorized', async () => {
    const { auth } = setup();
    for (const secret of [undefined, 'fl_nope', 'x'.repeat(5000)]) {
      assert.deepEqual(await auth.authenticate(secret, '127.0.0.1'), { ok: false, reason: 'unauthorized' });
    }
    await auth.close();
  });

  test('lookups are cached both ways, and the cache of unknown secrets is bounded', async () => {
    const { base, auth, lookups } = setup({ capacity: 10 });
    const { secret } = await issueToken(base, {});
    for (let i = 0; i < 5; i++) assert.equal((await auth.authenticate(secret, '127.0.0.1')).ok, true);
    for (let i = 0; i < 5; i++) await auth.authenticate('fl_unknown', '127.0.0.1');
    assert.equal(lookups(), 2);
    for (let i = 0; i < 1000; i++) await auth.authenticate(`fl_random_${i}`, '127.0.0.1');
    assert.ok(auth.metrics().cachedUnknown <= 10);
    await auth.close();
  });

  test('a revoked token is refused once the cache period (at most 5 s) has passed', async () => {
    const { c, base, auth } = setup({ ttl: 60_000 });
    const { token, secret } = await issueToken(base, {});
    assert.equal((await auth.authenticate(secret, '127.0.0.1')).ok, true);
    await revokeToken(base, token.id);
    c.advance(MAX_CACHE_TTL_MS - 1);
    assert.equal((await auth.authenticate(secret, '127.0.0.1')).ok, true, 'still cached');
    c.advance(1);
    assert.deepEqual(await auth.authenticate(secret, '127.0.0.1'), { ok: false, reason: 'unauthorized' });
    await auth.close();
  });

  test('an address lock admits its blocks and forbids the rest', async () => {
    const { base, auth } = setup();
    const { secret } = await issueToken(base, { ips: '198.51.100.0/24,2001:db8::/32' });
    assert.equal((await auth.authenticate(secret, '198.51.100.9')).ok, true);
    assert.equal((await auth.authenticate(secret, '2001:db8::9')).ok, true);
    assert.deepEqual(await auth.authenticate(secret, '198.51.101.9'), { ok: false, reason: 'forbidden' });
    assert.deepEqual(await auth.authenticate(secret, '::1'), { ok: false, reason: 'forbidden' });
    await auth.close();
  });

  test('a quota counts down, refuses past the limit until the window ends, then starts again', async () => {
    const { c, base, auth } = setup();
    const { token, secret } = await issueToken(base, { quota: '3/minute' });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await auth.authenticate(secret, '127.0.0.1'));
    assert.deepEqual(results.slice(0, 3), [2, 1, 0].map((remaining) => ({
      ok: true, tokenId: token.id, rateLimit: { limit: 3, remaining, resetSeconds: 60 },
    })));
    assert.deepEqual(results[3], { ok: false, reason: 'quota', rateLimit: { limit: 3, remaining: 0, resetSeconds: 60 } });
    c.advance(59_500);
    assert.deepEqual(await auth.authenticate(secret, '127.0.0.1'), {
      ok: false, reason: 'quota', rateLimit: { limit: 3, remaining: 0, resetSeconds: 1 },
    });
    c.advance(500);
    assert.deepEqual(await auth.authenticate(secret, '127.0.0.1'), {
      ok: true, tokenId: token.id, rateLimit: { limit: 3, remaining: 2, resetSeconds: 60 },
    });
    await auth.close();
  });

  test('a forbidden request does not use up the quota', async () => {
    const { base, auth } = setup();
    const { secret } = await issueToken(base, { ips: '10.0.0.0/8', quota: '1/hour' });
    for (let i = 0; i < 3; i++) assert.equal((await auth.authenticate(secret, '192.0.2.1')).ok, false);
    assert.equal((await auth.authenticate(secret, '10.0.0.1')).ok, true);
    await auth.close();
  });

  test('last use is written in batches: one write per token per flush, and on close', async () => {
    const { c, base, auth } = setup();
    const a = await issueToken(base, {});
    const b = await issueToken(base, {});
    let writes = 0;
    const recordUse = base.recordUse.bind(base);
    base.recordUse = (uses) => {
      writes += 1;
      return recordUse(uses);
    };
    for (let i = 0; i < 50; i++) await auth.authenticate(i % 2 ? a.secret : b.secret, '127.0.0.1');
    assert.equal(writes, 0);
    await auth.flushLastUsed();
    assert.equal(writes, 1);
    assert.equal((await base.get(a.token.id))?.lastUsedAt, c.now());
    c.advance(1000);
    await auth.authenticate(a.secret, '127.0.0.1');
    await auth.close();
    assert.equal(writes, 2);
    assert.equal((await base.get(a.token.id))?.lastUsedAt, c.now());
  });

  test('last use that could not be written (database busy) is written at the next flush', async () => {
    const { c, base, auth } = setup();
    const { token, secret } = await issueToken(base, {});
    const recordUse = base.recordUse.bind(base);
    let busy = true;
    base.recordUse = (uses) => (busy ? Promise.resolve(false) : recordUse(uses));
    await auth.authenticate(secret, '127.0.0.1');
    await auth.flushLastUsed();
    assert.equal(auth.metrics().pendingLastUsed, 1);
    busy = false;
    await auth.flushLastUsed();
    assert.equal(auth.metrics().pendingLastUsed, 0);
    assert.equal((await base.get(token.id))?.lastUsedAt, c.now());
    await auth.close();
  });

  test('the cache period cannot be set above the documented 5 s bound', async () => {
    const { c, base, auth } = setup({ ttl: 3_600_000 });
    const { token, secret } = await issueToken(base, {});
    await auth.authenticate(secret, '127.0.0.1');
    await revokeToken(base, token.id);
    c.advance(5_000);
    assert.equal((await auth.authenticate(secret, '127.0.0.1')).ok, false);
    await auth.close();
  });
});

describe('redis counters without redis', () => {
  test('the log names the Redis address but never a password from REDIS_URL', () => {
    assert.equal(redisTarget('redis://user:s3cret@cache.internal:6380/2'), 'redis://cache.internal:6380/2');
    assert.equal(redisTarget('redis://:s3cret@cache.internal'), 'redis://cache.internal');
  });

  test('a REDIS_URL that is not a redis URL fails at startup, without echoing it', () => {
    assert.throws(() => new RedisCounters({ url: 'http://user:s3cret@cache:6379' }), (error: Error) =>
      /redis:\/\/ or rediss:\/\//.test(error.message) && !error.message.includes('s3cret'));
    assert.throws(() => new RedisCounters({ url: 'cache:6379' }));
  });

  test('an unreachable Redis fails open: counted in process, logged once, counted in metrics', async () => {
    const port = await closedPort();
    const log = capture();
    const counters = new RedisCounters({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300, logger: log });
    try {
      const started = performance.now();
      const hits = [];
      for (let i = 0; i < 5; i++) hits.push(await counters.hit('k', 60_000));
      assert.ok(performance.now() - started < 2000, 'requests do not wait on a dead Redis');
      assert.deepEqual(hits.map((h) => h.count), [1, 2, 3, 4, 5]);
      assert.deepEqual(counters.metrics(), { backend: 'redis', redisAvailable: false, redisOutages: 1, failOpenHits: 5 });
      await new Promise((r) => setTimeout(r, 500));
      const warnings = log.lines.filter((l) => l.level === 'warn');
      assert.equal(warnings.length, 1, JSON.stringify(log.lines));
      assert.match(warnings[0]!.message, /redis unreachable/);
    } finally {
      await counters.close();
    }
  });
});

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
