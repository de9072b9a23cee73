import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fixtureServer } from '../helpers/fixture-server.js';
import { IDS } from '../helpers/fixture-catalog.js';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { basic, spawnServe, startTestServer, TEST_TOKEN, untilWorkersListen, type TestServer } from '../helpers/server.js';
import { openApiDocument } from '../../src/http/openapi/document.js';
import { metricsPortOf } from '../../src/server.js';

const fixture = fixtureServer();

/** A raw GET (no automatic decompression), for the bytes as sent. */
function raw(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

const names = (body: unknown): string[] => (body as { foods: { name: string }[] }).foods.map((f) => f.name);

describe('request ids', () => {
  test('every response carries X-Request-Id: a sane incoming one is kept, anything else replaced by a uuid', async () => {
    const ok = await fixture.server.get('/v1/brands', { headers: { 'x-request-id': 'trace-42.a:b' } });
    assert.equal(ok.headers.get('x-request-id'), 'trace-42.a:b');
    const unauthorized = await fixture.server.get('/v1/foods', { token: null });
    assert.equal(unauthorized.status, 401);
    assert.match(unauthorized.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const insane = await fixture.server.get('/nowhere', { headers: { 'x-request-id': 'a b<script>' } });
    assert.equal(insane.status, 404);
    assert.match(insane.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const twice = [await fixture.server.get('/healthz'), await fixture.server.get('/healthz')].map((r) => r.headers.get('x-request-id'));
    assert.notEqual(twice[0], twice[1]);
  });
});

describe('barcode lookup (upcs)', () => {
  test('finds a food by its UPC-A in every form a scanner reports', async () => {
    for (const code of ['012345678905', '12345678905', '0012345678905', '00012345678905', '1234567890']) {
      const { status, body } = await fixture.server.get(`/v1/foods?upcs=${code}&fields=name`);
      assert.equal(status, 200, code);
      assert.deepEqual(names(body), code === '1234567890' ? [] : ['Cheddar cheese, sharp'], code);
    }
  });

  test('several codes find the foods carrying any of them, combinable with every other parameter', async () => {
    const both = await fixture.server.get('/v1/foods?upcs=4006381333931,012345678905&fields=name');
    assert.deepEqual(names(both.body), ['Cheddar cheese, sharp', 'Skim milk']);
    assert.deepEqual(names((await fixture.server.get('/v1/foods?upcs=4006381333931,012345678905&fields=name&order=name:desc')).body), ['Skim milk', 'Cheddar cheese, sharp']);
    assert.deepEqual(names((await fixture.server.get('/v1/foods?upc=4006381333931,012345678905&query=cheddar&fields=name')).body), ['Cheddar cheese, sharp']);
    assert.deepEqual(names((await fixture.server.get(`/v1/foods?upcs=4006381333931,012345678905&brands=${IDS.zebra}&fields=name`)).body), ['Skim milk']);
    assert.deepEqual(names((await fixture.server.get('/v1/foods?upcs=4006381333931&region=au&fields=name')).body), []);
    const grouped = await fixture.server.get('/v1/foods?upcs=4006381333931,012345678905&grouping=brand&fields=name,grouping/name');
    assert.equal((grouped.body as { metadata: { total: number } }).metadata.total, 2);
  });

  test('a malformed code is a 400 naming the parameter; upcs and upc together are a 400', async () => {
    const bad = await fixture.server.get('/v1/foods?upcs=012345678905,12ab');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, {
      code: 400, message: 'Invalid parameter',
      details: "Parameter 'upcs': '12ab' is not a barcode: give 6 to 14 digits (EAN-13, UPC-A, UPC-E, EAN-8 or GTIN-14)",
    });
    const both = await fixture.server.get('/v1/foods?upcs=012345678905&upc=012345678905');
    assert.equal(both.status, 400);
    assert.match((both.body as { details: string }).details, /^Parameter 'upc'/);
  });
});

describe('defaultServing and servings[].isDefault', () => {
  test('the first serving is the default on every path: whole food, list, fields', async () => {
    const whole = (await fixture.server.get(`/v1/foods/${IDS.skim}`)).body as { food: { servings: { isDefault: boolean }[]; defaultServing: unknown } };
    assert.deepEqual(whole.food.servings.map((s) => s.isDefault), [true, false]);
    assert.deepEqual(whole.food.defaultServing, { name: '100 ml', scale: 1, type: 'volume', isDefault: true });
    const list = (await fixture.server.get('/v1/foods?query=skim')).body as { foods: { defaultServing: unknown }[] };
    assert.deepEqual(list.foods[0]!.defaultServing, whole.food.defaultServing);
    const selected = await fixture.server.get(`/v1/foods/${IDS.skim}?fields=defaultServing/name,servings(name,isDefault)`);
    assert.deepEqual(selected.body, { food: { servings: [{ name: '100 ml', isDefault: true }, { name: '1 cup', isDefault: false }], defaultServing: { name: '100 ml' } } });
  });

  test('a catalogue may name another default serving; the revision then differs from the first-serving one', async () => {
    const tmp = tempDir();
    try {
      const food = (isDefault: boolean) => ({
        foodId: IDS.sharp, region: 'us', brand: IDS.genericUs, category: IDS.hard, tags: [], name: 'Cheddar', classification: 'Cheese',
        servings: [{ name: '100 g', scale: 1, type: 'mass' }, { name: '1 slice', scale: 0.28, type: 'mass', ...(isDefault ? { isDefault: true } : {}) }],
        nutrients: { energy: 1686 },
      });
      const catalog = (isDefault: boolean) => JSON.stringify({
        categories: [{ id: IDS.dairy, name: 'Dairy', region: 'us' }, { id: IDS.hard, name: 'Hard cheese', region: 'us', parent: IDS.dairy }],
        foods: [food(isDefault)],
      });
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(tmp.dir, 'plain.json'), catalog(false));
      writeFileSync(join(tmp.dir, 'slice.json'), catalog(true));
      const db = join(tmp.dir, 'c.db');
      await importInto(db, 'catalog', [join(tmp.dir, 'plain.json')]);
      const server = await startTestServer(db);
      try {
        const before = (await server.get(`/v1/foods/${IDS.sharp}`)).body as { food: { revisionId: string; defaultServing: { name: string } } };
        assert.equal(before.food.defaultServing.name, '100 g');
        await importInto(db, 'catalog', [join(tmp.dir, 'slice.json')]);
        const after = (await server.get(`/v1/foods/${IDS.sharp}`)).body as { food: { revisionId: string; defaultServing: unknown; servings: { isDefault: boolean }[] } };
        assert.deepEqual(after.food.defaultServing, { name: '1 slice', scale: 0.28, type: 'mass', isDefault: true });
        assert.deepEqual(after.food.servings.map((s) => s.isDefault), [false, true]);
        assert.notEqual(after.food.revisionId, before.food.revisionId);
      } finally {
        await server.close();
      }
      const twoDefaults = JSON.parse(catalog(true)) as { foods: { servings: { isDefault?: boolean }[] }[] };
      twoDefaults.foods[0]!.servings[0]!.isDefault = true;
      writeFileSync(join(tmp.dir, 'two.json'), JSON.stringify(twoDefaults));
      const refused = await runCli(['import', 'catalog', join(tmp.dir, 'two.json'), '--db', db]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /at most one serving may have isDefault true/);
    } finally {
      tmp.cleanup();
    }
  });

  test('a database written before defaults and barcode keys gains both when a server opens it, revisions unchanged', async () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'old.db');
      await importInto(db, 'catalog', [fixturePath('catalog.json')]);
      const revisions = new Database(db).prepare('SELECT id, revision_id FROM foods ORDER BY id').all();
      // What schema 5 wrote: bodies without isDefault/defaultServing, no barcode keys.
      const old = new Database(db);
      for (const row of old.prepare('SELECT rid, body FROM foods').all() as { rid: number; body: string }[]) {
        const body = JSON.parse(row.body) as { servings: Record<string, unknown>[]; defaultServing?: unknown };
        delete body.defaultServing;
        for (const s of body.servings) delete s['isDefault'];
        old.prepare('UPDATE foods SET body = ? WHERE rid = ?').run(JSON.stringify(body), row.rid);
      }
      old.exec("DROP TABLE food_upcs; UPDATE meta SET value = '5' WHERE key = 'schema_version'");
      old.close();
      const server = await startTestServer(db);
      try {
        const { body } = await server.get('/v1/foods?upcs=4006381333931&fields=name,defaultServing/name,servings/isDefault');
        assert.deepEqual(body, { metadata: { total: 1, limit: 20, offset: 0 }, foods: [{ name: 'Skim milk', servings: [{ isDefault: true }, { isDefault: false }], defaultServing: { name: '100 ml' } }] });
        const whole = (await server.get(`/v1/foods/${IDS.sharp}`)).body as { food: { defaultServing: { name: string } } };
        assert.equal(whole.food.defaultServing.name, '100 g');
      } finally {
        await server.close();
      }
      assert.deepEqual(new Database(db).prepare('SELECT id, revision_id FROM foods ORDER BY id').all(), revisions);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('compression', () => {
  test('gzip and brotli when asked, above 1 KiB; the same body as uncompressed; none when not asked', async () => {
    const url = `${fixture.server.url}/v1/foods?limit=100&offset=0`;
    const auth = { authorization: basic(TEST_TOKEN) };
    const plain = await raw(url, auth);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.length > 1024);
    for (let round = 0; round < 3; round++) {
      // Round 0 is built, 1 is stored on its second sighting, 2 is a cache hit: all alike.
      const gzip = await raw(url, { ...auth, 'accept-encoding': 'gzip' });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.deepEqual(gunzipSync(gzip.body), plain.body);
      const br = await raw(url, { ...auth, 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      assert.ok(br.body.length < plain.body.length / 3, `${br.body.length} vs ${plain.body.length}`);
    }
    const small = await raw(`${fixture.server.url}/v1/brands?limit=1`, { ...auth, 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined, 'under the threshold');
    assert.equal((await raw(url, auth)).headers['content-encoding'], undefined);
  });
});

describe('CORS', () => {
  test('off by default: OPTIONS is still 401 without a token and 405 with one, no CORS headers', async () => {
    const preflight = await fixture.server.fetch('/v1/foods', {
      method: 'OPTIONS', token: null, headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.status, 401);
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.equal((await fixture.server.fetch('/v1/foods', { method: 'OPTIONS' })).status, 405);
  });

  describe('with --cors-origins', () => {
    const tmp = tempDir();
    let server: TestServer;
    before(async () => {
      const db = join(tmp.dir, 'cors.db');
      await importInto(db, 'catalog', [fixturePath('catalog.json')]);
      server = await startTestServer(db, { FOODLOOKUP_CORS_ORIGINS: 'https://app.example,http://localhost:3000' });
    });
    after(async () => {
      await server.close();
      tmp.cleanup();
    });

    test('a preflight is answered 204 without a token; the answers carry the CORS headers', async () => {
      const preflight = await server.fetch('/v1/foods?query=brie', {
        method: 'OPTIONS', token: null,
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/i);
      const answer = await server.fetch('/v1/foods?query=brie', { headers: { origin: 'https://app.example' } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.match(answer.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
      const refused = await server.fetch('/v1/foods', { token: null, headers: { origin: 'https://app.example' } });
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('access-control-allow-origin'), 'https://app.example', 'a browser app can read the 401');
    });

    test('another origin gets no Access-Control-Allow-Origin; an OPTIONS that is not a preflight is still 405', async () => {
      const other = await server.fetch('/v1/foods', {
        method: 'OPTIONS', token: null, headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
      assert.equal((await server.fetch('/v1/foods', { method: 'OPTIONS' })).status, 405);
    });
  });
});

describe('readiness, metrics, the document and the docs page', () => {
  test('/readyz says ready with the catalogue it serves, without a token', async () => {
    const { status, body } = await fixture.server.get('/readyz', { token: null });
    assert.equal(status, 200);
    assert.deepEqual((body as { catalog: { foods: number } }).catalog.foods, 7);
  });

  test('/openapi.json is the document, without a token; /docs renders it with a bundled Swagger UI', async () => {
    const document = await fixture.server.get('/openapi.json', { token: null });
    assert.equal(document.status, 200);
    assert.deepEqual(document.body, openApiDocument());
    const page = await fixture.server.get('/docs', { token: null });
    assert.equal(page.status, 200);
    assert.match(page.text, /<script src="\/docs\/swagger-ui-bundle\.js/);
    assert.doesNotMatch(page.text, /https?:\/\//, 'nothing from a CDN');
    const bundle = await fixture.server.fetch('/docs/swagger-ui-bundle.js', { token: null });
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await bundle.text()).length > 500_000);
    assert.match((await fixture.server.get('/docs/init.js', { token: null })).text, /url: '\/openapi\.json'/);
  });

  test('metrics are off unless --metrics-port is given', () => {
    assert.equal(metricsPortOf(fixture.server.app), undefined);
  });

  test('with serve --workers 2, the primary serves the metrics of both workers together', async () => {
    const tmp = tempDir();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    try {
      const db = join(tmp.dir, 'w.db');
      await importInto(db, 'catalog', [fixturePath('catalog.json')]);
      const serve = await spawnServe(db, { LOG_LEVEL: 'warn' }, ['--workers', '2', '--metrics-port', String(port)]);
      try {
        await untilWorkersListen(serve, 2);
        // Round robin hands the connections to both workers; each request on its own connection.
        for (let i = 0; i < 20; i++) {
          const res = await fetch(`${serve.url}/v1/brands?limit=1`, {
            headers: { authorization: basic(TEST_TOKEN), connection: 'close' }, signal: AbortSignal.timeout(15_000),
          });
          assert.equal(res.status, 200);
        }
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(15_000) })).text();
        assert.match(text, /foodlookup_http_requests_total\{method="GET",route="\/v1\/brands",status="200"\} 20/);
        assert.match(text, /foodlookup_catalog_foods 7\n/, 'a gauge of the catalogue is not summed over workers');
        // A worker that does not answer the primary (stopped here): the contract's body, for the next scrape to retry.
        const worker = Number(execFileSync('pgrep', ['-P', String(serve.pid)], { encoding: 'utf8' }).trim().split('\n')[0]);
        process.kill(worker, 'SIGSTOP');
        try {
          const stalled = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(30_000) });
          assert.equal(stalled.status, 503);
          assert.equal(stalled.headers.get('retry-after'), '5');
          assert.deepEqual(await stalled.json(), { code: 503, message: 'Service Unavailable', details: 'The metrics could not be collected; retry in 5 s' });
        } finally {
          process.kill(worker, 'SIGCONT');
        }
      } catch (error) {
        // Every wait is bounded: what the service said is the first thing to read when it fails.
        throw new Error(`${String(error)}; serve said: ${serve.stderr().slice(-2000)}`);
      } finally {
        const code = await Promise.race([serve.stop(), new Promise<string>((done) => setTimeout(() => done('still running after 30 s'), 30_000).unref())]);
        if (typeof code === 'string') process.kill(serve.pid, 'SIGKILL');
        assert.equal(code, 0, `serve --workers 2 on SIGTERM: ${String(code)}; it said: ${serve.stderr().slice(-2000)}`);
      }
    } finally {
      tmp.cleanup();
    }
  });

  test('/metrics on its own port: requests by route and status, latency, cache hits, catalogue, quota rejections', async () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'm.db');
      await importInto(db, 'catalog', [fixturePath('catalog.json')]);
      const created = await runCli(['tokens', 'create', '--quota', '1/minute', '--db', db]);
      const limited = created.stdout.trim();
      const server = await startTestServer(db, { FOODLOOKUP_METRICS_PORT: '0' });
      try {
        for (let i = 0; i < 3; i++) await server.get('/v1/foods?query=cheddar');
        await server.get('/v1/foods?limit=7');
        await server.get('/v1/brands', { token: limited });
        assert.equal((await server.get('/v1/brands', { token: limited })).status, 429);
        const port = metricsPortOf(server.app);
        assert.ok(port !== undefined && port > 0);
        assert.equal((await fetch(`${server.url}/metrics`, { headers: { authorization: basic(TEST_TOKEN) } })).status, 404, 'not on the public port');
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        assert.match(text, /foodlookup_http_requests_total\{method="GET",route="\/v1\/foods",status="200"\} 3/);
        assert.match(text, /foodlookup_http_requests_total\{method="GET",route="\/v1\/foods",status="400"\} 1/);
        assert.match(text, /foodlookup_http_request_duration_seconds_count\{route="\/v1\/foods"\} 4/);
        assert.match(text, /foodlookup_response_cache_hits_total 1/, 'the third sighting is a hit');
        assert.match(text, /foodlookup_catalog_foods 7/);
        assert.match(text, /foodlookup_catalog_version \d+/);
        assert.match(text, /foodlookup_last_import_duration_seconds \d/);
        assert.match(text, /foodlookup_quota_rejections_total 1/);
        assert.match(text, /foodlookup_process_resident_memory_bytes \d/);
      } finally {
        await server.close();
      }
    } finally {
      tmp.cleanup();
    }
  });

  test('FOODLOOKUP_RESPONSE_CACHE_MB=0: every answer is built again, none is stored', async () => {
    const tmp = tempDir();
    try {
      const db = join(tmp.dir, 'm.db');
      await importInto(db, 'catalog', [fixturePath('catalog.json')]);
      const server = await startTestServer(db, { FOODLOOKUP_METRICS_PORT: '0', FOODLOOKUP_RESPONSE_CACHE_MB: '0' });
      try {
        const bodies: string[] = [];
        for (let i = 0; i < 3; i++) bodies.push((await server.get('/v1/foods?query=cheddar')).text);
        assert.equal(new Set(bodies).size, 1, 'the same answer each time');
        const text = await (await fetch(`http://127.0.0.1:${metricsPortOf(server.app)!}/metrics`)).text();
        assert.match(text, /foodlookup_response_cache_hits_total 0/);
        assert.match(text, /foodlookup_response_cache_misses_total 3/);
      } finally {
        await server.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
