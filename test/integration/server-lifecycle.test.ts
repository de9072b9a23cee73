import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Writable } from 'node:stream';
import { importInto } from '../helpers/cli.js';
import { CLI, fixturePath, tempDir } from '../helpers/paths.js';
import { basic, spawnServe, TEST_TOKEN, untilWorkersListen } from '../helpers/server.js';
import { IDS } from '../helpers/fixture-catalog.js';
import { buildApp } from '../../src/app.js';
import { SERVING_MALLOC_ENV, SERVING_V8_FLAGS } from '../../src/cli/serve.js';
import { loadConfig } from '../../src/config.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { StaticTokens } from '../../src/tokens/static-tokens.js';
import type { Food } from '../../src/domain/records.js';
import type { Stamped } from '../../src/store/catalog-store.js';

let dir: string;
let cleanup: () => void;
let db: string;

before(async () => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'catalog.db');
  await importInto(db, 'catalog', [fixturePath('catalog.json')]);
});

after(() => cleanup());

/** A real store that fails the way a broken disk would, to reach the 500 path. */
class FailingStore extends SqliteCatalogStore {
  override food(): Promise<Stamped<Food> | undefined> {
    return Promise.reject(new Error('SQLITE_IOERR: disk I/O error at /secret/path/catalog.db'));
  }

  override foodJson(): Promise<Stamped<{ revisionId: string; json: string }> | undefined> {
    return Promise.reject(new Error('SQLITE_IOERR: disk I/O error at /secret/path/catalog.db'));
  }
}

describe('unexpected failures', () => {
  test('an internal error is an opaque 500 with a request id, and the full error is logged with that id', async () => {
    const lines: string[] = [];
    const logStream = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(chunk.toString()); done(); } });
    const store = new FailingStore(db);
    const config = loadConfig({ db, port: '0' }, { LOG_LEVEL: 'info' });
    const app = await buildApp(config, { store, auth: new StaticTokens([TEST_TOKEN]), logStream });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${address.port}/v1/foods/${IDS.sharp}`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(res.status, 500);
      const text = await res.text();
      assert.doesNotMatch(text, /SQLITE|secret|stack/i);
      const body = JSON.parse(text) as { code: number; message: string; details: string };
      assert.equal(body.code, 500);
      assert.equal(body.message, 'Internal Server Error');
      const id = /^Request id: ([0-9a-f-]{36})$/.exec(body.details)?.[1];
      assert.ok(id, body.details);
      assert.equal(res.headers.get('x-request-id'), id, 'the response names the same request id');
      const logged = lines.map((l) => JSON.parse(l) as { reqId?: string; err?: { message: string } }).find((l) => l.err);
      assert.equal(logged?.reqId, id);
      assert.match(logged?.err?.message ?? '', /SQLITE_IOERR/);
    } finally {
      await app.close();
      await store.close();
    }
  });
});

describe('the serve process', () => {
  test('logs one JSON line per request, never the token', async () => {
    const server = await spawnServe(db);
    try {
      await fetch(`${server.url}/v1/foods?query=cheese`, { headers: { authorization: basic(TEST_TOKEN) } });
      await fetch(`${server.url}/v1/brands/${IDS.acme}`, { headers: { authorization: basic(TEST_TOKEN) } });
    } finally {
      await server.stop();
    }
    const requests = server.stdout().split('\n').filter((l) => l.includes('"msg":"request"'));
    assert.equal(requests.length, 2);
    for (const line of requests) {
      const entry = JSON.parse(line) as { method: string; url: string; statusCode: number };
      assert.equal(entry.statusCode, 200);
    }
    assert.doesNotMatch(server.stdout() + server.stderr(), new RegExp(TEST_TOKEN));
    assert.doesNotMatch(server.stdout() + server.stderr(), new RegExp(basic(TEST_TOKEN).slice(6)));
  });

  test('SIGTERM finishes in-flight requests, closes the store and exits 0', async () => {
    const server = await spawnServe(db);
    const inFlight = Array.from({ length: 20 }, () =>
      fetch(`${server.url}/v1/foods?query=cheese&limit=100`, { headers: { authorization: basic(TEST_TOKEN) } })
        .then(async (r) => ({ status: r.status, body: await r.text() })));
    // Handlers attached at once: requests the server never accepted may fail, and that is fine.
    const settled = Promise.allSettled(inFlight);
    await Promise.any(inFlight);
    const code = await server.stop();
    assert.equal(code, 0);
    const results = await settled;
    const answered = results.filter((r) => r.status === 'fulfilled');
    // Requests being served finish with their whole body; ones that arrive on a kept-alive
    // connection after the signal are turned away with 503 (Fastify's return503OnClosing).
    assert.ok(answered.some((r) => r.value.status === 200));
    for (const r of answered) {
      assert.ok([200, 503].includes(r.value.status), String(r.value.status));
      if (r.value.status === 200) assert.doesNotThrow(() => JSON.parse(r.value.body), 'a complete body');
    }
    await assert.rejects(fetch(`${server.url}/healthz`), 'the port is closed after exit');
  });
});

/** Whether process `pid` holds a TCP socket listening on `port` (from /proc: no tools needed). */
function listensOn(pid: number, port: string): boolean {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const hexPort = Number(port).toString(16).toUpperCase().padStart(4, '0');
  return ['tcp', 'tcp6'].some((table) => readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1).some((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[1]?.endsWith(`:${hexPort}`) === true && cols[3] === '0A' && inodes.has(cols[9]!);
  }));
}

describe('the serving worker', () => {
  const children = (pid: number): number[] =>
    execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);
  const argv = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const environ = (pid: number): string[] => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

  test('one worker serves, started with the serving V8 flags, and accepts its connections itself', async () => {
    const server = await spawnServe(db);
    try {
      const [worker, ...more] = children(server.pid);
      assert.deepEqual(more, []);
      for (const flag of SERVING_V8_FLAGS) assert.ok(argv(worker!).includes(flag), `${flag} in ${argv(worker!).join(' ')}`);
      for (const [name, value] of Object.entries(SERVING_MALLOC_ENV)) assert.ok(environ(worker!).includes(`${name}=${value}`), `${name}=${value} in the worker's environment`);
      assert.ok(!environ(server.pid).some((v) => v.startsWith('MALLOC_')), "the primary's own environment is left alone");
      // With round robin only the primary would hold the listening socket.
      assert.ok(listensOn(worker!, new URL(server.url).port), 'the worker holds the listening socket');
      const answer = await fetch(`${server.url}/v1/foods?query=cheese`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(answer.status, 200);
      // Reads through a memory map of the database file (shared page cache, not private memory).
      assert.ok(readFileSync(`/proc/${worker}/maps`, 'utf8').split('\n').some((line) => line.endsWith(db)), 'the worker maps the database file');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test("a flag the user set in NODE_OPTIONS is theirs, and so are their malloc settings", async () => {
    const server = await spawnServe(db, { NODE_OPTIONS: '--max-semi-space-size=8', MALLOC_ARENA_MAX: '2' });
    try {
      const pid = children(server.pid)[0]!;
      const worker = argv(pid);
      assert.ok(!worker.some((arg) => arg.startsWith('--max-semi-space-size')), worker.join(' '));
      const growing = SERVING_V8_FLAGS.find((flag) => flag.startsWith('--heap-growing-percent='))!;
      assert.ok(worker.includes(growing), worker.join(' '));
      assert.ok(environ(pid).includes('MALLOC_ARENA_MAX=2'));
      assert.ok(!environ(pid).some((v) => v.startsWith('MALLOC_MMAP_THRESHOLD_')), 'none of ours added to theirs');
    } finally {
      await server.stop();
    }
  });

  test('a worker that cannot start is not restarted: serve exits 1 with its reason', () => {
    const bad = join(dir, 'not-a-database.db');
    writeFileSync(bad, 'this is not a SQLite file, and no longer than a page'.repeat(100));
    const result = spawnSync(process.execPath, [CLI, 'serve', '--db', bad, '--port', '0'], {
      encoding: 'utf8', timeout: 20_000, env: { ...process.env, FOODLOOKUP_TOKENS: TEST_TOKEN },
    });
    assert.equal(result.status, 1, `${result.signal ?? ''} ${result.stderr}`);
    assert.match(result.stderr, /file is not a database/);
    assert.doesNotMatch(result.stderr, /starting another/);
  });
});

describe('schema 8', () => {
  test('a schema 7 database keeps its search data and version: the blobs move into a rowid table, and searches answer as before', async () => {
    const old = join(dir, 'schema-7.db');
    copyFileSync(db, old);
    const blobs = (d: Database.Database): [string, Buffer][] => d.prepare('SELECT key, value FROM search_blobs ORDER BY key').raw().all() as [string, Buffer][];
    const version = (d: Database.Database): unknown => d.prepare("SELECT value FROM meta WHERE key = 'catalog_version'").pluck().get();
    const seven = new Database(old);
    // Schema 7 kept the blobs in a WITHOUT ROWID table.
    seven.exec(`ALTER TABLE search_blobs RENAME TO b; CREATE TABLE search_blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
      INSERT INTO search_blobs SELECT key, value FROM b; DROP TABLE b; UPDATE meta SET value = '7' WHERE key = 'schema_version'`);
    const before = blobs(seven);
    const versionBefore = version(seven);
    seven.close();
    const server = await spawnServe(old);
    try {
      const response = await fetch(`${server.url}/v1/foods?query=cheddar&fields=name`, { headers: { authorization: basic(TEST_TOKEN) } });
      assert.equal(response.status, 200);
      assert.ok(((await response.json()) as { metadata: { total: number } }).metadata.total > 0);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const eight = new Database(old, { readonly: true });
    try {
      assert.equal(eight.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(), String(SCHEMA_VERSION));
      assert.doesNotMatch(eight.prepare("SELECT sql FROM sqlite_master WHERE name = 'search_blobs'").pluck().get() as string, /WITHOUT ROWID/i);
      assert.deepEqual(blobs(eight), before);
      assert.equal(version(eight), versionBefore, 'the same search data: readers need not load it again');
    } finally {
      eight.close();
    }
  });
});

describe('serve --workers', () => {
  test('brings an older database up to date once, then N processes share the port and all stop on SIGTERM', async () => {
    const old = join(dir, 'workers.db');
    copyFileSync(db, old);
    const damaged = new Database(old);
    damaged.exec("DELETE FROM search_blobs WHERE key = 'meta'; UPDATE meta SET value = '5' WHERE key = 'schema_version'");
    damaged.close();
    const server = await spawnServe(old, {}, ['--workers', '2']);
    const workers = (): number[] => execFileSync('pgrep', ['-P', String(server.pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);
    try {
      await untilWorkersListen(server, 2);
      assert.equal(workers().length, 2);
      // Round robin: the primary accepts and deals the connections out.
      for (const worker of workers()) assert.ok(!listensOn(worker, new URL(server.url).port), `worker ${worker} does not listen itself`);
      assert.ok(listensOn(server.pid, new URL(server.url).port), 'the primary listens');
      // Connections are dealt round-robin: several at once reach both workers.
      for (let round = 0; round < 5; round++) {
        const statuses = await Promise.all(Array.from({ length: 8 }, () =>
          fetch(`${server.url}/v1/foods?query=ch&query-type=prefix`, { headers: { authorization: basic(TEST_TOKEN), connection: 'close' } })
            .then((r) => r.status)));
        assert.deepEqual(new Set(statuses), new Set([200]));
      }
      const answeredBy = new Set(server.stdout().split('\n').filter((line) => line.includes('"statusCode":200'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid));
      assert.deepEqual([...answeredBy].sort(), workers().sort());
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const migrated = new Database(old, { readonly: true });
    try {
      assert.equal(migrated.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(), String(SCHEMA_VERSION));
      assert.ok(migrated.prepare("SELECT 1 FROM search_blobs WHERE key = 'meta'").get() !== undefined);
    } finally {
      migrated.close();
    }
    assert.doesNotMatch(server.stderr(), /exited .*starting another/, 'no worker failed on the way');
  });
});
