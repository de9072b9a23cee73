import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createClient } from 'redis';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { NO_REDIS, sharedRedis, startRedis, type SharedRedis } from '../helpers/redis.js';
import { basic, spawnServe, spawnServes, type ServeProcess } from '../helpers/server.js';
import { IDS } from '../helpers/fixture-catalog.js';

/**
 * Quotas shared through a real Redis (contract C5): two `foodlookup serve` processes on one
 * database and one Redis, the window reset, and Redis going away and coming back mid-run.
 */

let db: string;
let cleanup: () => void;
let redis: SharedRedis | undefined;

before(async () => {
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  db = join(tmp.dir, 'catalog.db');
  await importInto(db, 'catalog', [fixturePath('catalog.json')]);
  redis = await sharedRedis();
});

after(async () => {
  await redis?.release();
  cleanup();
});

const FOOD = `/v1/foods/${IDS.sharp}`;

/** Token ids are random uuids, so the keys of one run never meet another run's. */
const quotaKey = (id: string): string => `foodlookup:quota:${id}:minute`;

async function createToken(flags: readonly string[]): Promise<{ id: string; token: string }> {
  const result = await runCli(['tokens', 'create', '--db', db, '--json', ...flags]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { id: string; token: string };
}

interface Answer {
  readonly status: number;
  readonly limit: string | null;
  readonly remaining: string | null;
  readonly reset: string | null;
  readonly retryAfter: string | null;
  readonly body: string;
}

async function call(server: ServeProcess, token: string): Promise<Answer> {
  const res = await fetch(server.url + FOOD, { headers: { authorization: basic(token) } });
  return {
    status: res.status,
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
    body: await res.text(),
  };
}

async function withClient<T>(url: string, use: (client: ReturnType<typeof createClient>) => Promise<T>): Promise<T> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

function assertNoSecrets(servers: readonly ServeProcess[], secrets: readonly string[]): void {
  for (const server of servers) {
    const all = server.stdout() + server.stderr();
    for (const secret of secrets) assert.equal(all.includes(secret), false, 'a token appears in the log');
  }
}

describe('a Redis that hangs', () => {
  test('requests are answered while Redis is frozen (the quota check gives up after 80 ms), and counting returns to Redis when it answers', async (t) => {
    const own = await startRedis();
    if (!own) return t.skip(NO_REDIS);
    const { id, token } = await createToken(['--quota', '100/minute']);
    const server = await spawnServe(db, { REDIS_URL: own.url }, ['--workers', '1']);
    try {
      assert.equal((await call(server, token)).remaining, '99');
      own.pause();
      // Answered while Redis is still frozen: before, every request waited until it was resumed.
      // (The race only turns such a hang into a failure instead of the test's own timeout.)
      const hang = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('a request waited for the frozen Redis')), 20_000).unref());
      for (let i = 0; i < 5; i++) {
        const answer = await Promise.race([call(server, token), hang]);
        assert.equal(answer.status, 200, 'served while Redis hangs');
        assert.equal(answer.limit, '100');
      }
      // The first request gave up after the bound and marked Redis unreachable; the rest did not wait.
      const outage = server.stdout().split('\n').filter((l) => l.includes('redis unreachable'));
      assert.equal(outage.length, 1, server.stdout());
      assert.match(outage[0]!, /timed out after 80 ms/);

      own.resume();
      const deadline = performance.now() + 10_000;
      while (!server.stdout().includes('redis reachable again') && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(server.stdout().includes('redis reachable again'), 'the probe finds Redis again');
      const before = Number(await withClient(own.url, (c) => c.get(quotaKey(id))));
      await call(server, token);
      assert.equal(Number(await withClient(own.url, (c) => c.get(quotaKey(id)))), before + 1, 'counted in Redis again');
    } finally {
      own.resume();
      assert.equal(await server.stop(), 0);
      await own.stop();
    }
    assertNoSecrets([server], [token]);
  });
});

describe('quotas in Redis', () => {
  test('two replicas on the same Redis share one quota', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const { id, token } = await createToken(['--quota', '6/minute']);
    const [a, b] = await spawnServes(2, db, { REDIS_URL: redis.url }) as [ServeProcess, ServeProcess];
    try {
      const answers: Answer[] = [];
      for (let i = 0; i < 8; i++) answers.push(await call(i % 2 === 0 ? a : b, token));
      assert.deepEqual(answers.map((x) => [x.status, x.remaining]), [
        [200, '5'], [200, '4'], [200, '3'], [200, '2'], [200, '1'], [200, '0'], [429, '0'], [429, '0'],
      ]);
      for (const answer of answers) assert.equal(answer.limit, '6');
      const refused = answers[7]!;
      assert.deepEqual(Object.keys(JSON.parse(refused.body) as object), ['code', 'message', 'details']);
      assert.equal((JSON.parse(refused.body) as { message: string }).message, 'Quota exceeded');
      assert.ok(Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60);
      assert.equal(await withClient(redis.url, (c) => c.get(quotaKey(id))), '8');
    } finally {
      assert.equal(await a.stop(), 0);
      assert.equal(await b.stop(), 0);
    }
    assertNoSecrets([a, b], [token]);
  });

  test('when the window ends the count starts again', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const url = redis.url;
    const { id, token } = await createToken(['--quota', '2/minute']);
    const server = await spawnServe(db, { REDIS_URL: url });
    try {
      assert.equal((await call(server, token)).status, 200);
      assert.equal((await call(server, token)).status, 200);
      const refused = await call(server, token);
      assert.equal(refused.status, 429);
      // Rather than wait a minute: let the window's key expire now, as Redis does at its end.
      await withClient(url, (c) => c.pExpire(quotaKey(id), 200));
      await new Promise((r) => setTimeout(r, 400));
      const fresh = await call(server, token);
      assert.equal(fresh.status, 200);
      assert.equal(fresh.remaining, '1');
      assert.ok(Number(fresh.reset) >= 59 && Number(fresh.reset) <= 60, `reset ${fresh.reset}`);
      const ttl = await withClient(url, (c) => c.pTTL(quotaKey(id)));
      assert.ok(ttl > 55_000 && ttl <= 60_000, `the new window lasts a minute (ttl ${ttl})`);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('Redis stopped mid-run: requests are still served (fail open, logged once), then counting resumes in Redis', async (t) => {
    // A private Redis: the machine's shared one is never stopped.
    const own = await startRedis();
    if (!own) return t.skip(NO_REDIS);
    const { id, token } = await createToken(['--quota', '100/minute']);
    // One process: the outage is logged once per process.
    const server = await spawnServe(db, { REDIS_URL: own.url }, ['--workers', '1']);
    try {
      for (let i = 1; i <= 3; i++) assert.equal((await call(server, token)).remaining, String(100 - i));
      assert.equal(await withClient(own.url, (c) => c.get(quotaKey(id))), '3');

      await own.stop();
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        const answer = await call(server, token);
        assert.equal(answer.status, 200, 'served while Redis is down');
        assert.equal(answer.limit, '100');
      }
      assert.ok(performance.now() - started < 3000, 'requests do not hang on a dead Redis');
      const outageLines = (): string[] => server.stdout().split('\n').filter((l) => l.includes('redis unreachable'));
      assert.equal(outageLines().length, 1, server.stdout());
      const outage = JSON.parse(outageLines()[0]!) as { level: number; redisOutages: number; redis: string };
      assert.equal(outage.redisOutages, 1);
      assert.equal(outage.redis, own.url);

      await own.start();
      const deadline = performance.now() + 10_000;
      while (!server.stdout().includes('redis reachable again') && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const recovery = server.stdout().split('\n').find((l) => l.includes('redis reachable again'));
      assert.ok(recovery, 'recovery is logged');
      assert.equal((JSON.parse(recovery) as { failOpenHits: number }).failOpenHits, 5);

      // The restarted Redis kept nothing (no persistence): its count starts at 1 and is shared again.
      const after = await call(server, token);
      assert.equal(after.status, 200);
      assert.equal(after.remaining, '99');
      await call(server, token);
      assert.equal(await withClient(own.url, (c) => c.get(quotaKey(id))), '2');
      assert.equal(outageLines().length, 1, 'one log line per outage');
    } finally {
      assert.equal(await server.stop(), 0);
      await own.stop();
    }
    assertNoSecrets([server], [token]);
  });
});
