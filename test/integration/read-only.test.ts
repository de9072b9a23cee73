import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { importInto, runCli } from '../helpers/cli.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { basic, spawnServe, TEST_TOKEN } from '../helpers/server.js';
import { restrictedUser } from '../helpers/users.js';

/**
 * Contract C1 and issue 22.7 through the real CLI: serving a database from a read-only file or
 * folder (containers mount data read-only), and the commands that must write saying clearly
 * that they cannot, naming the path.
 */
let dir: string;
let cleanup: () => void;
let source: string;
let stored: { id: string; token: string };
const user = restrictedUser();

before(async () => {
  ({ dir, cleanup } = tempDir());
  chmodSync(dir, 0o755);
  source = join(dir, 'source.db');
  await importInto(source, 'catalog', [fixturePath('catalog.json')]);
  const created = await runCli(['tokens', 'create', '--db', source, '--json', '--name', 'reader']);
  assert.equal(created.code, 0, created.stderr);
  stored = JSON.parse(created.stdout) as { id: string; token: string };
});

const readOnlyPlaces: string[] = [];
after(() => {
  for (const place of readOnlyPlaces) chmodSync(place, 0o755);
  cleanup();
});

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A copy of the source database in a folder of its own, owned by the user the CLI runs as. */
function placeCopy(name: string, own: (path: string) => void): { folder: string; db: string } {
  const folder = join(dir, name);
  mkdirSync(folder);
  const db = join(folder, 'catalog.db');
  copyFileSync(source, db);
  own(folder);
  own(db);
  return { folder, db };
}

function makeReadOnly(path: string, mode: number): void {
  chmodSync(path, mode);
  readOnlyPlaces.push(path);
}

async function get(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/v1/foods?query=cheddar`, { headers: { authorization: basic(token) } })).status;
}

describe('serving a read-only database', () => {
  for (const [what, readOnly, phrase] of [
    ['file', (place: { folder: string; db: string }) => makeReadOnly(place.db, 0o444), 'the file %s is read-only'],
    ['folder', (place: { folder: string; db: string }) => makeReadOnly(place.folder, 0o555), 'its folder %f is read-only'],
  ] as const) {
    test(`serve works on a read-only ${what}, says so at start, and writes nothing there`, async (t) => {
      if ('reason' in user) return t.skip(user.reason);
      const place = placeCopy(`serve-ro-${what}`, user.own);
      readOnly(place);
      const before = sha(place.db);
      const server = await spawnServe(place.db, {}, [], user.as);
      try {
        assert.ok(server.stderr().includes(`serving ${place.db} read-only, as ${phrase.replace('%s', place.db).replace('%f', place.folder)}`), server.stderr());
        assert.match(server.stderr(), /access tokens cannot be created there and their last use is not recorded/);
        assert.equal(await get(server.url, TEST_TOKEN), 200);
        assert.equal(await get(server.url, stored.token), 200, 'a token stored in the read-only database is accepted');
        assert.equal(await get(server.url, 'not-a-token'), 401);
      } finally {
        assert.equal(await server.stop(), 0);
      }
      assert.equal(sha(place.db), before, 'the database is unchanged');
      assert.deepEqual(readdirSync(place.folder), ['catalog.db'], 'no journal or -wal/-shm file left beside it');
      const listed = await runCli(['tokens', 'list', '--db', place.db, '--json'], {}, 60_000, user.as);
      assert.equal(listed.code, 0, listed.stderr);
      const token = (JSON.parse(listed.stdout) as { id: string; lastUsedAt: string | null }[]).find((x) => x.id === stored.id);
      assert.equal(token?.lastUsedAt, null, 'last use is not recorded in a read-only database');
    });

    test(`tokens create and revoke refuse a read-only ${what}, naming the path; import too`, async (t) => {
      if ('reason' in user) return t.skip(user.reason);
      const place = placeCopy(`cli-ro-${what}`, user.own);
      readOnly(place);
      const before = sha(place.db);
      const expected = phrase.replace('%s', place.db).replace('%f', place.folder);
      const created = await runCli(['tokens', 'create', '--db', place.db], {}, 60_000, user.as);
      assert.equal(created.code, 1);
      assert.equal(created.stderr, `foodlookup tokens: cannot create tokens in ${place.db}: ${expected}${what === 'folder' ? ', and SQLite writes its journal there' : ''}\n`);
      const revoked = await runCli(['tokens', 'revoke', stored.id, '--db', place.db], {}, 60_000, user.as);
      assert.equal(revoked.code, 1);
      assert.ok(revoked.stderr.includes(`cannot revoke tokens in ${place.db}: ${expected}`), revoked.stderr);
      const imported = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--db', place.db], {}, 60_000, user.as);
      assert.equal(imported.code, 1);
      assert.ok(imported.stderr.includes(`foodlookup import: cannot import into ${place.db}: ${expected}`), imported.stderr);
      assert.equal(sha(place.db), before);
    });
  }

  test('a database left in WAL mode in a read-only folder is refused with the reason and the remedy', async (t) => {
    if ('reason' in user) return t.skip(user.reason);
    const place = placeCopy('wal-at-rest', user.own);
    // Another program's connection leaves the file in WAL mode when it closes (ours do not).
    const other = new Database(place.db);
    other.pragma('journal_mode = WAL');
    other.close();
    user.own(place.db);
    makeReadOnly(place.folder, 0o555);
    const result = await runCli(['serve', '--db', place.db, '--port', '0'], {}, 60_000, user.as);
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(`cannot read ${place.db} from a read-only folder: it was left in WAL mode without its ${place.db}-shm file`), result.stderr);
  });
});

describe('commands that would create a database by accident', () => {
  test('serve refuses a missing file, naming it, and creates nothing', async () => {
    const missing = join(dir, 'no', 'such', 'dir', 'x.db');
    const result = await runCli(['serve', '--db', missing, '--port', '0'], {}, 60_000);
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(`no database at ${missing}`), result.stderr);
    assert.match(result.stderr, /foodlookup start/);
    assert.equal(existsSync(join(dir, 'no')), false, 'no folder was created');
  });

  test('a failed import into a new file leaves no database (nor the folders it made) behind', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ brands: [{ id: 'not-a-uuid', name: 'x', region: 'us' }] }));
    for (const target of [join(dir, 'new.db'), join(dir, 'made', 'for', 'it', 'new.db')]) {
      const result = await runCli(['import', 'catalog', bad, '--db', target], {}, 60_000);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /import failed, nothing was changed: bad\.json brands\[0\]/);
      for (const suffix of ['', '-journal', '-wal', '-shm']) assert.equal(existsSync(target + suffix), false, target + suffix);
    }
    assert.equal(existsSync(join(dir, 'made')), false, 'the folders the import made are gone too');
  });
});
