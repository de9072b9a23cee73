import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { RunningServer } from '../../src/server.js';
import { fixtureCatalog, IDS } from '../helpers/fixture-catalog.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { importInto, runCli } from '../helpers/cli.js';
import { ADMIN_DATABASE_URL, NO_POSTGRES, testDatabaseUrl } from '../helpers/postgres.js';
import { STATEMENT_TIMEOUT_MS, withClient } from '../../src/store/postgres/connection.js';
import { basic, TEST_TOKEN } from '../helpers/server.js';
import { envelope } from '../helpers/soap.js';

/**
 * The PostgreSQL store's read side through the real server: the fixture catalogue imported by
 * the CLI into a SQLite file and into a PostgreSQL database, both served, and every resource
 * asked the same requests of both: the bodies must be the same bytes. Then a catalogue switch
 * under load, and the configuration's precedence and errors through the CLI.
 */

/** A small deterministic PRNG (mulberry32): the same requests every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FOOD_IDS = [IDS.sharp, IDS.mild, IDS.brie, IDS.skim, IDS.creme, IDS.macadamia, IDS.spread];
const BRANDS = [IDS.acme, IDS.zebra, IDS.eclair, IDS.bush, IDS.genericUs, IDS.genericAu];
const CATEGORIES = [IDS.dairy, IDS.cheese, IDS.hard, IDS.soft, IDS.milk, IDS.bakery, IDS.snacks, IDS.nuts];
const TAGS = [IDS.organic, IDS.lowFat, IDS.glutenFree];
const UNKNOWN = '00000000-0000-4000-8000-999999999999';
const FTS = ['cheese', 'cheddar', 'chedd', 'chedd*', 'cheese brie', 'creme brulee', 'CRÈME', 'brocoli', 'milk', 'hard', 'roast', 'acme', 'queensland',
  'aged milk', 'nuts', 'zebra', '"cheese" -brie', 'spread'];
const PREFIXES = ['ch', 'cheese ', 'CRÈ', 'brie', 'm', 'c', 'zz', '%', '_', 'sk', '\u0000', 'ch\u0000e'];
const CLASSIFICATIONS = ['"Cheese, cheddar"', 'Cheese\u0000', '"Milk, skim"', 'Cheese', '"cheese, BRIE"', '"Nuts, macadamia"'];

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const maybe = (r: () => number, p: number): boolean => r() < p;

/** An id list with some `!` ids; `whole` lists invert as a whole (`!A,B`). */
function ids(r: () => number, pool: readonly string[], whole: boolean): string {
  const n = 1 + Math.floor(r() * 3);
  const chosen = Array.from({ length: n }, () => pick(r, [...pool, UNKNOWN]));
  if (whole) return (maybe(r, 0.4) ? '!' : '') + chosen.join(',');
  return chosen.map((id) => (maybe(r, 0.35) ? `!${id}` : id)).join(',');
}

function matching(r: () => number, params: string[], prefixToo: boolean): void {
  if (maybe(r, 0.4)) return;
  if (prefixToo && maybe(r, 0.35)) params.push(`query=${encodeURIComponent(pick(r, PREFIXES))}`, 'query-type=prefix');
  else params.push(`query=${encodeURIComponent(pick(r, FTS))}`);
}

function paging(r: () => number, params: string[]): void {
  if (maybe(r, 0.5)) params.push(`limit=${pick(r, [1, 5, 10, 100])}`);
  if (maybe(r, 0.4)) params.push(`offset=${pick(r, [0, 1, 2, 4, 6, 100])}`);
}

function foodsRequest(r: () => number): string {
  const params: string[] = [];
  matching(r, params, true);
  if (maybe(r, 0.4)) params.push(`order=${pick(r, ['rank', 'rank:desc', 'name', 'name:asc', 'name:desc'])}`);
  if (maybe(r, 0.25)) params.push(`region=${pick(r, ['us', 'au'])}`);
  if (maybe(r, 0.25)) params.push(`brands=${ids(r, BRANDS, false)}`);
  if (maybe(r, 0.2)) params.push(`tags=${ids(r, TAGS, false)}`);
  if (maybe(r, 0.25)) params.push(`categories=${ids(r, CATEGORIES, true)}`);
  if (maybe(r, 0.2)) params.push(`classifications=${encodeURIComponent((maybe(r, 0.4) ? '!' : '') + pick(r, CLASSIFICATIONS))}`);
  if (maybe(r, 0.1)) params.push(`upcs=${pick(r, ['012345678905', '4006381333931', '12345678905', '0000000000000'])}`);
  if (maybe(r, 0.35)) {
    params.push(`grouping=${pick(r, ['brand', 'classification'])}`);
    if (maybe(r, 0.5)) params.push(`grouping-order=${pick(r, ['rank', 'rank:desc', 'name', 'name:desc'])}`);
    if (maybe(r, 0.5)) params.push(`grouping-limit=${pick(r, [1, 2, 3])}`);
  }
  paging(r, params);
  if (maybe(r, 0.15)) params.push(`fields=${pick(r, ['name,brand/name', '$summary', 'foods(name,tags)', 'grouping,name'])}`);
  return `/v1/foods?${params.join('&')}`;
}

function recordsRequest(r: () => number): string {
  const kind = pick(r, ['brands', 'categories', 'tags'] as const);
  const params: string[] = [];
  matching(r, params, true);
  if (maybe(r, 0.4)) params.push(`order=${pick(r, ['name', 'name:desc', 'rank'])}`);
  if (kind !== 'tags' && maybe(r, 0.3)) params.push(`region=${pick(r, ['us', 'au'])}`);
  if (maybe(r, 0.3)) params.push(`classifications=${encodeURIComponent((maybe(r, 0.4) ? '!' : '') + pick(r, CLASSIFICATIONS))}`);
  if (kind !== 'categories' && maybe(r, 0.3)) params.push(`categories=${ids(r, CATEGORIES, true)}`);
  if (kind !== 'brands' && maybe(r, 0.3)) params.push(`brands=${ids(r, BRANDS, true)}`);
  if (kind !== 'tags' && maybe(r, 0.3)) params.push(`tags=${ids(r, TAGS, false)}`);
  if (kind === 'categories' && maybe(r, 0.3)) params.push(`parents=${ids(r, CATEGORIES, true)}`);
  if (kind === 'categories' && maybe(r, 0.3)) params.push(`is-leaf=${pick(r, ['true', 'false'])}`);
  paging(r, params);
  return `/v1/${kind}?${params.join('&')}`;
}

/** Every by-id resource of the fixture, and ids that are none. */
function byIdRequests(revisions: readonly string[]): string[] {
  return [
    ...[...FOOD_IDS, ...revisions, UNKNOWN, FOOD_IDS[0]!.toUpperCase(), 'not-a-uuid'].map((id) => `/v1/foods/${id}`),
    ...[...BRANDS, UNKNOWN].map((id) => `/v1/brands/${id}`),
    ...[...CATEGORIES, UNKNOWN].map((id) => `/v1/categories/${id}`),
    ...[...TAGS, UNKNOWN].map((id) => `/v1/tags/${id}`),
    `/v1/foods/${IDS.brie}?fields=name,tags`,
  ];
}

interface Server extends RunningServer {
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly text: string;
}

async function ask(server: Server, path: string): Promise<Answer> {
  const response = await server.fetch(path);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

async function soap(server: Server, body: string): Promise<Answer> {
  const response = await server.fetch('/soap/1.2', { method: 'POST', headers: { 'content-type': 'application/soap+xml; charset=utf-8' }, body });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The real server on a free port, on the store these flags name, as `serve` configures it. */
async function serverOn(flags: Record<string, string>): Promise<Server> {
  const config = loadConfig({ ...flags, port: '0', host: '127.0.0.1' }, { FOODLOOKUP_TOKENS: TEST_TOKEN, LOG_LEVEL: 'silent' });
  const server = await startServer(config, { handleSignals: false });
  return {
    ...server,
    fetch: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization') && !path.startsWith('/soap')) headers.set('authorization', basic(TEST_TOKEN));
      return fetch(server.url + path, { ...init, headers });
    },
  };
}

describe('the PostgreSQL store answers as SQLite does', { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  const temp = tempDir('foodlookup-pg-reader-');
  let sqlite: Server;
  let postgres: Server;
  let url: string;
  let revisions: string[] = [];

  before(async () => {
    url = (await testDatabaseUrl())!;
    const db = join(temp.dir, 'catalog.db');
    await importInto(db, 'catalog', [fixturePath('catalog.json')]);
    const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', url]);
    assert.equal(imported.code, 0, imported.stderr);
    sqlite = await serverOn({ db });
    postgres = await serverOn({ 'database-url': url });
    revisions = await Promise.all(FOOD_IDS.slice(0, 3).map(async (id) => ((await (await sqlite.fetch(`/v1/foods/${id}`)).json()) as { revisionId: string }).revisionId));
  });

  after(async () => {
    await sqlite?.close();
    await postgres?.close();
    temp.cleanup();
  });

  it('answers every by-id resource with the same bytes', async () => {
    for (const path of byIdRequests(revisions)) {
      assert.deepEqual(await ask(postgres, path), await ask(sqlite, path), path);
    }
  });

  it('answers 1,500 generated list requests of every resource with the same bytes', async () => {
    const r = random(24);
    const paths = Array.from({ length: 1500 }, () => (maybe(r, 0.6) ? foodsRequest(r) : recordsRequest(r)));
    let ok = 0;
    for (const path of paths) {
      const [a, b] = await Promise.all([ask(postgres, path), ask(sqlite, path)]);
      assert.deepEqual(a, b, path);
      if (a.status === 200) ok++;
    }
    // The generator must mostly ask valid questions, or the comparison tests little.
    assert.ok(ok > 1200, `only ${ok} of 1,500 requests were answered 200`);
  });

  it('answers SOAP foodSearch and getFood with the same bytes', async () => {
    const bodies = [
      ...['cheese', 'cheddar', 'cheddar cheese', 'milk', 'brie', 'nothing', 'creme', 'CHEESE sharp', 'nuts roasted'].map((terms) => envelope('foodSearch', { devkey: TEST_TOKEN, terms })),
      ...[...FOOD_IDS, UNKNOWN].map((id) => envelope('getFood', { devkey: TEST_TOKEN, id })),
    ];
    for (const body of bodies) assert.deepEqual(await soap(postgres, body), await soap(sqlite, body), body);
  });

  it("answers with the same bytes after the version's foods table was rewritten and its rows moved (CLUSTER)", async () => {
    const fresh = await serverOn({ 'database-url': url });
    try {
      // The pass that reads the classification groups also reads where each row lies (its ctid).
      assert.equal((await fresh.fetch('/v1/foods?grouping=classification&limit=1')).status, 200);
      await withClient(url, async (client) => {
        const schema = (await client.query<{ value: string }>("SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'")).rows[0]!.value;
        const places = async (): Promise<Map<number, string>> =>
          new Map((await client.query<{ rid: number; ctid: string }>(`SELECT rid, ctid::text AS ctid FROM ${schema}.foods`)).rows.map((r) => [r.rid, r.ctid]));
        const before = await places();
        await client.query(`CLUSTER ${schema}.foods USING foods_name`);
        const moved = [...await places()].filter(([rid, ctid]) => before.get(rid) !== ctid).length;
        assert.ok(moved > 0, 'CLUSTER moved no row: the test would prove nothing');
      });
      const paths = [...FTS.map((q) => `/v1/foods?query=${encodeURIComponent(q)}&limit=100`), '/v1/foods?limit=100', ...FOOD_IDS.map((id) => `/v1/foods/${id}`)];
      for (const path of paths) assert.deepEqual(await ask(fresh, path), await ask(sqlite, path), path);
    } finally {
      await fresh.close();
    }
  });

  it('finds a prefix search\'s run of names in memory: with the name column out of reach, the same bytes', async () => {
    const fresh = await serverOn({ 'database-url': url });
    const schema = await withClient(url, async (client) => (await client.query<{ value: string }>("SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'")).rows[0]!.value);
    // A name_key PostgreSQL no longer has: a query that asked for it would fail.
    await withClient(url, (client) => client.query(`ALTER TABLE ${schema}.foods RENAME COLUMN name_key TO name_key_away`));
    try {
      for (const prefix of PREFIXES) {
        for (const extra of ['limit=100', 'limit=100&order=name:desc', 'offset=1&limit=5', 'limit=100&region=au']) {
          const path = `/v1/foods?query-type=prefix&query=${encodeURIComponent(prefix)}&${extra}`;
          const answer = await ask(fresh, path);
          assert.equal(answer.status, 200, path);
          assert.deepEqual(answer, await ask(sqlite, path), path);
        }
      }
    } finally {
      await withClient(url, (client) => client.query(`ALTER TABLE ${schema}.foods RENAME COLUMN name_key_away TO name_key`));
      await fresh.close();
    }
  });

  it('moves Last-Modified and the answers to a newly imported version, with no failed request under load', async () => {
    const total = async (): Promise<{ total: number; lastModified: string | null; etag: string | null }> => {
      const response = await postgres.fetch('/v1/foods?limit=100');
      assert.equal(response.status, 200);
      return { total: ((await response.json()) as { metadata: { total: number } }).metadata.total, lastModified: response.headers.get('last-modified'), etag: response.headers.get('etag') };
    };
    const before = await total();
    const stop = { now: false };
    const failures: string[] = [];
    let requests = 0;
    const load = async (): Promise<void> => {
      while (!stop.now) {
        for (const path of ['/v1/foods?query=cheese', `/v1/foods/${IDS.sharp}`, '/v1/tags?categories=!' + IDS.cheese, '/v1/foods?grouping=brand']) {
          const response = await postgres.fetch(path);
          requests++;
          if (response.status !== 200) failures.push(`${path}: ${response.status} ${await response.text()}`);
          else await response.arrayBuffer();
        }
      }
    };
    const loaders = Array.from({ length: 4 }, load);
    // A changed catalogue: one more food, through the CLI as an operator would.
    const extra = join(temp.dir, 'extra.json');
    const { revisionId: _, ...food } = fixtureCatalog().foods[0]!;
    writeFileSync(extra, JSON.stringify({ foods: [{ ...food, foodId: '00000000-0000-4000-8000-000000000699', name: 'Cheddar cheese, smoked' }] }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const imported = await runCli(['import', 'catalog', extra, '--database-url', url]);
    assert.equal(imported.code, 0, imported.stderr);
    const committed = Date.now();
    let after = await total();
    while (after.total === before.total && Date.now() - committed < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await total();
    }
    const switched = Date.now() - committed;
    stop.now = true;
    await Promise.all(loaders);
    assert.deepEqual(failures, []);
    assert.ok(requests > 20, `only ${requests} requests ran during the switch`);
    assert.equal(after.total, before.total + 1);
    assert.ok(switched <= 2000, `the replica switched ${switched} ms after the import committed (import took ${committed - started} ms)`);
    assert.ok(Date.parse(after.lastModified!) > Date.parse(before.lastModified!), `Last-Modified ${before.lastModified} → ${after.lastModified}`);
    assert.notEqual(after.etag, before.etag);
  });
});

/**
 * A TCP proxy in front of PostgreSQL that a test can cut (connections reset, new ones refused)
 * or make hang (connections accepted, nothing forwarded): PostgreSQL going away or hanging,
 * without stopping the server the other tests use.
 */
class Proxy {
  mode: 'pass' | 'cut' | 'hang' = 'pass';
  private readonly sockets = new Set<Socket>();
  private readonly server: NetServer;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => {
      this.track(client);
      if (this.mode === 'cut') {
        client.destroy();
        return;
      }
      if (this.mode === 'hang') return;
      const upstream = connect(this.target.port, this.target.host);
      this.track(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      const end = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Ends every connection through it; what comes next depends on `mode`. */
  set(mode: Proxy['mode']): void {
    this.mode = mode;
    if (mode === 'pass') return;
    for (const socket of this.sockets) {
      if (mode === 'cut') socket.destroy();
      else socket.pause();
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('while PostgreSQL is away or hangs', { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  let proxy: Proxy;
  let server: Server;

  before(async () => {
    const url = new URL((await testDatabaseUrl())!);
    const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', url.toString()]);
    assert.equal(imported.code, 0, imported.stderr);
    proxy = new Proxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${await proxy.listen()}`;
    server = await serverOn({ 'database-url': url.toString() });
  });

  after(async () => {
    proxy.set('pass');
    await server?.close();
    await proxy?.close();
  });

  /**
   * Requests that need PostgreSQL, new to the server in each case (a request seen before may be
   * answered from the response cache, and a food's row from the version's): lists of records
   * are paged in SQL, a food not asked before is read from its table.
   */
  const needsPostgres = {
    cut: ['/v1/brands?classifications=Cheese', `/v1/tags?brands=${IDS.acme}`, `/v1/foods/${IDS.skim}`],
    hang: ['/v1/brands?classifications=%22Milk,%20skim%22', `/v1/tags?brands=${IDS.zebra}`, `/v1/foods/${IDS.macadamia}`],
  };
  let asked = 0;

  for (const mode of ['cut', 'hang'] as const) {
    it(`answers 503 with Retry-After within 5 s, searches from memory, and recovers by itself (${mode})`, async () => {
      // Seen once while PostgreSQL answers: their rows are then held with the version.
      assert.equal((await server.fetch('/v1/foods?query=cheese&limit=5')).status, 200);
      const soapSearch = envelope('foodSearch', { devkey: TEST_TOKEN, terms: 'cheddar' });
      const searched = await soap(server, soapSearch);
      assert.equal(searched.status, 200);
      assert.equal((await server.fetch(`/v1/foods/${IDS.brie}`)).status, 200);

      proxy.set(mode);
      for (const path of needsPostgres[mode]) {
        const started = Date.now();
        const response = await server.fetch(path);
        const took = Date.now() - started;
        const body = await response.text();
        assert.equal(response.status, 503, `${path}: ${body}`);
        assert.ok(took < 5000, `${path} took ${took} ms`);
        assert.ok(Number(response.headers.get('retry-after')) > 0, path);
        const parsed = JSON.parse(body) as { code: number; message: string; details: string };
        assert.equal(parsed.code, 503);
        assert.equal(parsed.message, 'Service Unavailable');
      }
      assert.notEqual((await server.fetch('/readyz')).status, 200);
      // The same foods another way: the search and the rows come from memory.
      const fromMemory = await server.fetch('/v1/foods?query=cheese&limit=5&fields=name,brand/name');
      assert.equal(fromMemory.status, 200, await fromMemory.clone().text());
      assert.equal((await server.fetch(`/v1/foods/${IDS.brie}?fields=name`)).status, 200);
      assert.deepEqual(await soap(server, soapSearch), searched);

      proxy.set('pass');
      const until = Date.now() + 10_000;
      let status = 0;
      while (Date.now() < until) {
        // Brands are listed in SQL; a new offset each time, never a cached answer.
        status = (await server.fetch(`/v1/brands?region=us&offset=${asked++}`)).status;
        if (status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(status, 200, 'no recovery within 10 s of PostgreSQL answering again');
      assert.equal((await server.fetch('/readyz')).status, 200);
    });
  }
});

describe("a version's search data slower to read than a request may wait", { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  it('is still loaded: the server starts when the read ends, and answers', async () => {
    await startsWhileLocked('search_blobs');
  });

  it('is still built from the rows when it is of another format: the server starts when the read ends, and answers', async () => {
    // Without its meta blob the version's search data is not this program's (an earlier
    // release's import): each replica builds it in memory from the foods, which are locked.
    await startsWhileLocked('foods', (schema) => `DELETE FROM ${schema}.search_blobs WHERE key = 'meta'`);
  });

  /** A server started on a freshly imported catalogue while `table` of its version is locked longer than a request may wait. */
  async function startsWhileLocked(table: string, change?: (schema: string) => string): Promise<void> {
    const url = (await testDatabaseUrl())!;
    const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--database-url', url]);
    assert.equal(imported.code, 0, imported.stderr);
    await withClient(url, async (locker) => {
      const schema = (await locker.query<{ value: string }>("SELECT value FROM foodlookup_meta WHERE key = 'catalog_schema'")).rows[0]!.value;
      if (change) await locker.query(change(schema));
      // The version's load waits behind this lock longer than a request's statement may run.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${schema}.${table} IN ACCESS EXCLUSIVE MODE`);
      const started = performance.now();
      const starting = serverOn({ 'database-url': url }).then((server) => ({ server }), (error: unknown) => ({ error }));
      await new Promise((resolve) => setTimeout(resolve, STATEMENT_TIMEOUT_MS + 1500));
      await locker.query('COMMIT');
      const outcome = await starting;
      assert.ok('server' in outcome, `the server did not start: ${'error' in outcome ? String(outcome.error) : ''}`);
      try {
        assert.ok(performance.now() - started >= STATEMENT_TIMEOUT_MS + 1500);
        const searched = await outcome.server.fetch('/v1/foods?query=cheddar&limit=5');
        assert.equal(searched.status, 200);
        assert.ok(((await searched.json()) as { metadata: { total: number } }).metadata.total > 0);
      } finally {
        await outcome.server.close();
      }
    });
  }
});

describe('which store the configuration names (a flag beats the environment)', () => {
  const temp = tempDir('foodlookup-pg-config-');
  after(() => temp.cleanup());

  it('prefers --database-url over --db and DATABASE_URL, and --db over DATABASE_URL', () => {
    const env = { DATABASE_URL: 'postgres://env@db.example.com/x', FOODLOOKUP_DB: '/tmp/env.db' };
    assert.equal(loadConfig({ 'database-url': 'postgres://flag@h/y', db: '/tmp/flag.db' }, env).databaseUrl, 'postgres://flag@h/y');
    assert.equal(loadConfig({ db: '/tmp/flag.db' }, env).databaseUrl, undefined);
    assert.equal(loadConfig({ db: '/tmp/flag.db' }, env).dbPath, '/tmp/flag.db');
    assert.equal(loadConfig({}, env).databaseUrl, 'postgres://env@db.example.com/x');
    assert.equal(loadConfig({}, { FOODLOOKUP_DB: '/tmp/env.db' }).databaseUrl, undefined);
  });

  it('serves the SQLite file named by --db although DATABASE_URL names an unreachable server', async () => {
    const db = join(temp.dir, 'flag.db');
    await importInto(db, 'catalog', [fixturePath('catalog.json')]);
    const result = await runCli(['tokens', 'list', '--db', db], { DATABASE_URL: 'postgres://someone:secret@127.0.0.1:1/none' });
    assert.equal(result.code, 0, result.stderr);
  });

  for (const [what, args, env, host] of [
    ['a URL that is not postgres://', ['--database-url', 'mysql://admin:hunter2@db.example.com:3306/foods'], {}, 'db.example.com'],
    ['DATABASE_URL that is not postgres://', [], { DATABASE_URL: 'http://admin:hunter2@web.example.com/x' }, 'web.example.com'],
    ['an unreachable server', ['--database-url', 'postgres://admin:hunter2@127.0.0.1:1/foods'], {}, '127.0.0.1:1'],
  ] as const) {
    it(`stops with one line naming the host, never the password, exit 1: ${what}`, async () => {
      for (const command of [['serve', '--port', '0'], ['import', 'catalog', fixturePath('catalog.json')], ['tokens', 'list']]) {
        const result = await runCli([...command, ...args], { ...env, FOODLOOKUP_TOKENS: TEST_TOKEN }, 30_000);
        assert.equal(result.code, 1, `${command[0]}: ${result.stderr}`);
        const lines = result.stderr.trim().split('\n');
        assert.equal(lines.length, 1, `${command[0]}: ${result.stderr}`);
        assert.match(lines[0]!, new RegExp(host.replace(/\./g, '\\.')), command[0]);
        assert.doesNotMatch(result.stderr + result.stdout, /hunter2/, command[0]);
      }
    });
  }

  it('stops with one line naming the host, never the password, exit 1: refused credentials', { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, async () => {
    const url = (await testDatabaseUrl())!;
    // Trust authentication takes any password: a role that does not exist is refused.
    const parsed = new URL(url);
    parsed.username = `fl_nobody_${Date.now()}`;
    parsed.password = 'hunter2';
    const result = await runCli(['serve', '--port', '0', '--database-url', parsed.toString()], { FOODLOOKUP_TOKENS: TEST_TOKEN }, 30_000);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(parsed.hostname.replace(/\./g, '\\.')));
    assert.doesNotMatch(result.stderr, /hunter2/);
  });

  it('a server on PostgreSQL answers with the token of its environment', { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, async () => {
    const url = (await testDatabaseUrl())!;
    const config = loadConfig({ 'database-url': url, port: '0', host: '127.0.0.1' }, { FOODLOOKUP_TOKENS: TEST_TOKEN, LOG_LEVEL: 'silent' });
    const server = await startServer(config, { handleSignals: false });
    try {
      const response = await fetch(`${server.url}/v1/brands`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(response.status, 200);
      // A new database holds the two generic brands, as a new SQLite file does.
      assert.equal(((await response.json()) as { metadata: { total: number } }).metadata.total, 2);
    } finally {
      await server.close();
    }
  });
});
