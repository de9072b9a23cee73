import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { CLI, ROOT, tempDir } from '../helpers/paths.js';
import { basic, spawnServe, startTestServer, TEST_TOKEN, type TestServer } from '../helpers/server.js';
import { IDS } from '../helpers/fixture-catalog.js';
import { forEachStore } from '../helpers/stores.js';
import { fixtureDatabase } from '../helpers/fixture-server.js';

forEachStore((kind) => {
  const fixture = fixtureDatabase(kind);

  interface Created {
    readonly id: string;
    readonly token: string;
  }

  /** `foodlookup tokens create … --json`: the new token's id and secret. */
  async function createToken(flags: readonly string[] = []): Promise<Created> {
    const result = await runCli(['tokens', 'create', ...fixture.store.args, '--json', ...flags]);
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout) as Created;
    assert.match(created.token, /^fl_[A-Za-z0-9_-]{43}$/);
    return created;
  }

  async function revoke(id: string): Promise<void> {
    const result = await runCli(['tokens', 'revoke', id, ...fixture.store.args]);
    assert.equal(result.code, 0, result.stderr);
  }

  const FOOD = `/v1/foods/${IDS.sharp}`;

  describe('tokens CLI', () => {
    test('create prints the secret once; list shows id, name, limits and last use, never the secret', async () => {
      const created = await runCli(['tokens', 'create', ...fixture.store.args, '--name', 'reporting', '--ips', '10.1.2.3/8,2001:db8::/32', '--quota', '500/day']);
      assert.equal(created.code, 0, created.stderr);
      const secret = created.stdout.trim();
      assert.match(secret, /^fl_[A-Za-z0-9_-]{43}$/);
      assert.match(created.stderr, /only time the token is shown/);

      const table = await runCli(['tokens', 'list', ...fixture.store.args]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^ID\s+NAME\s+CREATED\s+IPS\s+QUOTA\s+REVOKED\s+LAST USED$/m);
      assert.match(table.stdout, /reporting\s+\S+\s+10\.0\.0\.0\/8,2001:db8::\/32\s+500\/day\s+no\s+never/);
      const json = await runCli(['tokens', 'list', ...fixture.store.args, '--json']);
      const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
      const mine = listed.find((t) => t['name'] === 'reporting');
      assert.deepEqual(Object.keys(mine ?? {}).sort(), ['createdAt', 'id', 'ips', 'lastUsedAt', 'name', 'quota', 'revoked', 'revokedAt']);
      assert.deepEqual(mine?.['ips'], ['10.0.0.0/8', '2001:db8::/32']);
      for (const output of [table.stdout, table.stderr, json.stdout, json.stderr]) assert.equal(output.includes(secret), false);
      assert.equal(output(table).includes(secret.slice(3, 20)), false, 'not even part of the secret');
    });

    test('bad input is a usage error (exit 2) that names the problem', async () => {
      for (const [flags, message] of [
        [['--quota', '10/week'], /N\/minute, N\/hour or N\/day/],
        [['--ips', '10.0.0.0/40'], /prefix length/],
        [['--ips', 'example.org'], /not an IPv4 or IPv6 address/],
      ] as const) {
        const result = await runCli(['tokens', 'create', ...fixture.store.args, ...flags]);
        assert.equal(result.code, 2, flags.join(' '));
        assert.match(result.stderr, message);
      }
      const result = await runCli(['tokens', 'revoke', ...fixture.store.args]);
      assert.equal(result.code, 2);
      const unknown = await runCli(['tokens', 'revoke', '00000000-0000-4000-8000-00000000dead', ...fixture.store.args]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no token with id/);
    });
  });

  function output(result: { stdout: string; stderr: string }): string {
    return result.stdout + result.stderr;
  }

  describe('stored tokens over the JSON interface', () => {
    let server: TestServer;
    before(async () => (server = await startTestServer(fixture.store)));
    after(async () => server.close());

    test('a stored token is accepted; FOODLOOKUP_TOKENS still work, without rate-limit headers', async () => {
      const { token } = await createToken(['--name', 'plain']);
      const stored = await server.get(FOOD, { token });
      assert.equal(stored.status, 200);
      assert.equal(stored.headers.get('x-ratelimit-limit'), null);
      const fromEnv = await server.get(FOOD, { token: TEST_TOKEN });
      assert.equal(fromEnv.status, 200);
      assert.equal(fromEnv.headers.get('x-ratelimit-limit'), null);
      const unknown = await server.get(FOOD, { token: 'fl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
      assert.equal(unknown.status, 401);
      assert.deepEqual(unknown.body, { code: 401, message: 'Not Authorized' });
    });

    test('a token past its quota gets 429 with Retry-After; every response of a limited token has X-RateLimit-*', async () => {
      const { token } = await createToken(['--quota', '3/minute']);
      const seen: (string | null)[][] = [];
      for (let i = 0; i < 3; i++) {
        const res = await server.get(i === 1 ? '/v1/foods/00000000-0000-4000-8000-00000000ffff' : FOOD, { token });
        assert.equal(res.status, i === 1 ? 404 : 200);
        seen.push([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]);
        const reset = Number(res.headers.get('x-ratelimit-reset'));
        assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
      }
      assert.deepEqual(seen, [['3', '2'], ['3', '1'], ['3', '0']]);
      const refused = await server.get(FOOD, { token });
      assert.equal(refused.status, 429);
      const body = refused.body as { code: number; message: string; details: string };
      assert.deepEqual(Object.keys(body), ['code', 'message', 'details']);
      assert.equal(body.code, 429);
      assert.equal(body.message, 'Quota exceeded');
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(refused.headers.get('x-ratelimit-reset'), String(retryAfter));
    });

    test('a revoked token is refused within 5 seconds', async () => {
      const { id, token } = await createToken(['--name', 'to-revoke']);
      assert.equal((await server.get(FOOD, { token })).status, 200);
      await revoke(id);
      const revokedAt = performance.now();
      let status = 200;
      while (status === 200 && performance.now() - revokedAt < 7000) {
        status = (await server.get(FOOD, { token })).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 100));
      }
      const took = performance.now() - revokedAt;
      assert.equal(status, 401);
      assert.ok(took <= 5_200, `refused after ${Math.round(took)} ms`);
    });

    test('an address lock admits its addresses and answers 403 to others', async () => {
      const allowed = await createToken(['--ips', '127.0.0.0/8']);
      const elsewhere = await createToken(['--ips', '10.0.0.0/8,2001:db8::/32']);
      assert.equal((await server.get(FOOD, { token: allowed.token })).status, 200);
      const denied = await server.get(FOOD, { token: elsewhere.token });
      assert.equal(denied.status, 403);
      assert.deepEqual(denied.body, { code: 403, message: 'Forbidden', details: 'Address not allowed for this token' });
    });

    test('without --trust-proxy, X-Forwarded-For is ignored', async () => {
      const { token } = await createToken(['--ips', '203.0.113.0/24']);
      const res = await server.get(FOOD, { token, headers: { 'x-forwarded-for': '203.0.113.9' } });
      assert.equal(res.status, 403);
    });
  });

  /** A SOAP 1.2 getFood request (contract C6) with this devkey. */
  function getFoodEnvelope(devkey: string, id: string): string {
    return '<?xml version="1.0" encoding="utf-8"?>' +
      '<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:f="urn:FoodSearch1"><env:Body>' +
      `<f:getFood><f:devkey>${devkey}</f:devkey><f:id>${id}</f:id></f:getFood>` +
      '</env:Body></env:Envelope>';
  }

  describe('stored tokens over the SOAP interface', () => {
    let server: TestServer;
    before(async () => (server = await startTestServer(fixture.store)));
    after(async () => server.close());

    const soap = async (devkey: string): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${server.url}/soap/1.2`, {
        method: 'POST',
        headers: { 'content-type': 'application/soap+xml; charset=utf-8; action="urn:GetFoodAction"' },
        body: getFoodEnvelope(devkey, IDS.sharp),
      });
      return { status: res.status, text: await res.text() };
    };
    const reason = (text: string): string | undefined => /<(?:\w+:)?Text[^>]*>([^<]*)<\/(?:\w+:)?Text>/.exec(text)?.[1];

    test('the devkey obeys the same rules: revoked, locked and over-quota keys get their faults', async (t) => {
      if ((await soap(TEST_TOKEN)).status === 404) {
        t.skip('the SOAP interface is not mounted in this build');
        return;
      }
      const ok = await soap(TEST_TOKEN);
      assert.equal(ok.status, 200, ok.text);

      const revoked = await createToken();
      await revoke(revoked.id);
      const invalid = await soap(revoked.token);
      assert.equal(invalid.status, 400);
      assert.match(invalid.text, /Sender/);
      assert.equal(reason(invalid.text), 'Invalid developer key');

      const locked = await createToken(['--ips', '10.0.0.0/8']);
      const forbidden = await soap(locked.token);
      assert.match(forbidden.text, /Sender/);
      assert.equal(reason(forbidden.text), 'Forbidden');

      const limited = await createToken(['--quota', '1/minute']);
      assert.equal((await soap(limited.token)).status, 200);
      const exceeded = await soap(limited.token);
      assert.ok(exceeded.status >= 400 && exceeded.status < 500, String(exceeded.status));
      assert.match(exceeded.text, /Sender/);
      assert.equal(reason(exceeded.text), 'Quota exceeded');
    });
  });

  describe('address locks behind a trusted proxy (--trust-proxy)', () => {
    let server: TestServer;
    before(async () => (server = await startTestServer(fixture.store, { FOODLOOKUP_TRUST_PROXY: 'true' })));
    after(async () => server.close());

    test('the X-Forwarded-For client address decides, IPv4 and IPv6', async () => {
      const v4 = await createToken(['--ips', '203.0.113.0/24']);
      const v6 = await createToken(['--ips', '2001:db8::/32']);
      const get = (token: string, xff: string) => server.get(FOOD, { token, headers: { 'x-forwarded-for': xff } });
      assert.equal((await get(v4.token, '203.0.113.9')).status, 200);
      assert.equal((await get(v4.token, '198.51.100.1')).status, 403);
      assert.equal((await get(v6.token, '2001:db8::7')).status, 200);
      assert.equal((await get(v6.token, '2001:db9::7')).status, 403);
      assert.equal((await get(v6.token, '203.0.113.9')).status, 403);
      // Without the header the socket address (127.0.0.1) is the client.
      assert.equal((await server.get(FOOD, { token: v4.token })).status, 403);
    });
  });

  /** True when this machine can listen on ::1. */
  async function ipv6Loopback(): Promise<boolean> {
    const probe = createServer();
    return new Promise((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(0, '::1', () => probe.close(() => resolve(true)));
    });
  }

  describe('address locks over IPv6', () => {
    test('a client on ::1 is admitted by ::1 and IPv6 blocks holding it, refused by IPv4 locks', async (t) => {
      if (!(await ipv6Loopback())) {
        t.skip('this machine cannot listen on ::1');
        return;
      }
      const server = await startTestServer(fixture.store, {}, { host: '::1' });
      try {
        assert.match(server.url, /^http:\/\/\[::1\]:\d+$/);
        const exact = await createToken(['--ips', '::1']);
        const block = await createToken(['--ips', '::/64']);
        const v4 = await createToken(['--ips', '127.0.0.1']);
        const other = await createToken(['--ips', '2001:db8::/32']);
        assert.equal((await server.get(FOOD, { token: exact.token })).status, 200);
        assert.equal((await server.get(FOOD, { token: block.token })).status, 200);
        assert.equal((await server.get(FOOD, { token: v4.token })).status, 403);
        assert.equal((await server.get(FOOD, { token: other.token })).status, 403);
      } finally {
        await server.close();
      }
    });
  });

  describe('logs', () => {
    test('no log line carries a token, whatever the outcome of the request', async () => {
      const limited = await createToken(['--quota', '1/minute', '--name', 'log-check']);
      const locked = await createToken(['--ips', '10.0.0.0/8']);
      const revoked = await createToken();
      await revoke(revoked.id);
      const serve = await spawnServe(fixture.store, { LOG_LEVEL: 'trace' });
      const secrets = [limited.token, locked.token, revoked.token, TEST_TOKEN];
      try {
        const statuses: number[] = [];
        const send = async (token: string, path = FOOD): Promise<void> => {
          const res = await fetch(serve.url + path, { headers: { authorization: basic(token) } });
          statuses.push(res.status);
          await res.arrayBuffer();
        };
        await send(limited.token);
        await send(limited.token);
        await send(locked.token);
        await send(revoked.token);
        await send(TEST_TOKEN, '/v1/nowhere');
        await send(`${TEST_TOKEN}x`);
        assert.deepEqual(statuses, [200, 429, 403, 401, 404, 401]);
      } finally {
        assert.equal(await serve.stop(), 0);
      }
      const lines = serve.stdout().trim().split('\n');
      assert.ok(lines.length >= 6, `expected request log lines, got ${lines.length}`);
      for (const line of lines) JSON.parse(line);
      const all = serve.stdout() + serve.stderr();
      for (const secret of secrets) {
        assert.equal(all.includes(secret), false, 'a token appears in the log');
        assert.equal(all.includes(Buffer.from(`${secret}:`).toString('base64')), false, 'Basic credentials appear in the log');
      }
      // The last use is written on a graceful stop.
      const listed = JSON.parse((await runCli(['tokens', 'list', ...fixture.store.args, '--json'])).stdout) as { id: string; lastUsedAt: string | null }[];
      assert.notEqual(listed.find((t) => t.id === limited.id)?.lastUsedAt, null);
      assert.equal(listed.find((t) => t.id === revoked.id)?.lastUsedAt, null);
    });
  });
});

/** `foodlookup start` until its stderr matches `until`; `whileUp` runs then, before SIGTERM. Returns stderr. */
function runStart(dbPath: string, until: RegExp, whileUp: (stderr: string) => Promise<void> = () => Promise.resolve()): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'start', '--db', dbPath, '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, FOODLOOKUP_TOKENS: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let failure: unknown;
    let reached = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!reached && until.test(stderr)) {
        reached = true;
        whileUp(stderr).catch((error: unknown) => (failure = error)).finally(() => child.kill('SIGTERM'));
      }
    });
    child.once('error', reject);
    child.once('exit', () => {
      clearTimeout(timer);
      if (failure !== undefined) reject(failure instanceof Error ? failure : new Error('check failed'));
      else resolve(stderr);
    });
  });
}

describe('npm start on a fresh database', () => {
  test('builds the bundled USDA catalogue, prints a development token once with a working curl line, serves real foods', async () => {
    const tmp = tempDir();
    try {
      const fresh = join(tmp.dir, 'fresh.db');
      const curlLine = /try: curl -u (fl_[A-Za-z0-9_-]{43}): '(http:\/\/\S+\/v1\/foods\?query=cheddar)'\n/;
      const first = await runStart(fresh, curlLine, async (stderr) => {
        const [, token, url] = curlLine.exec(stderr) ?? [];
        const res = await fetch(url!, { headers: { authorization: basic(token!) } });
        assert.equal(res.status, 200);
        const body = (await res.json()) as { metadata: { total: number }; foods: { name: string }[] };
        assert.ok(body.metadata.total >= 10, `only ${body.metadata.total} cheddar foods`);
        assert.ok(body.foods.some((f) => f.name === 'Cheese, cheddar'), body.foods.map((f) => f.name).join('; '));
      });
      assert.match(first, curlLine);
      const shown = /development token[^\n]*: (fl_[A-Za-z0-9_-]{43})\n/.exec(first);
      assert.equal(shown?.[1], curlLine.exec(first)?.[1]);
      const listed = JSON.parse((await runCli(['tokens', 'list', '--db', fresh, '--json'])).stdout) as { name: string }[];
      assert.deepEqual(listed.map((x) => x.name), ['development']);
      assert.ok(!existsSync(`${fresh}.building`), 'the build file was renamed into place');
      assert.match(first, /imported 7413 foods: 7413 added/);
      const second = await runStart(fresh, /listening on/);
      assert.doesNotMatch(second, /development token|fl_|building/);
    } finally {
      tmp.cleanup();
    }
  });
});
