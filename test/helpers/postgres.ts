import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after } from 'node:test';
import pg from 'pg';

/**
 * The PostgreSQL the tests use: $FOODLOOKUP_TEST_DATABASE_URL, else the one scripts/test-services.sh
 * made sure of (its URL in $FOODLOOKUP_PG_DIR/url, /tmp/foodlookup-pg/url by default), else the
 * machine's on 127.0.0.1:5432. Each test gets a database of its own on it (testDatabaseUrl).
 */
export type StoreKind = 'sqlite' | 'postgres';

const PG_DIR = process.env['FOODLOOKUP_PG_DIR'] || '/tmp/foodlookup-pg';
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Why the PostgreSQL tests skip: shown by `t.skip`, so a skipped run says what to start. */
export const NO_POSTGRES =
  'no PostgreSQL: nothing answers on 127.0.0.1:5432 and scripts/test-services.sh started none (install postgresql, or set FOODLOOKUP_TEST_DATABASE_URL)';

function candidateUrls(): string[] {
  const given = process.env['FOODLOOKUP_TEST_DATABASE_URL'];
  if (given) return [given];
  const urls: string[] = [];
  try {
    const written = readFileSync(`${PG_DIR}/url`, 'utf8').trim();
    if (written) urls.push(written);
  } catch {
    // no file: test-services.sh has not run (a single test file run by hand)
  }
  if (!urls.includes(DEFAULT_URL)) urls.push(DEFAULT_URL);
  return urls;
}

/** Server states that pass: too many connections (other test files, other runs), starting up. */
const PASSING = new Set(['53300', '57P03']);

/** True when the URL takes a query; a server that is only busy is asked again for up to 15 s. */
async function answers(url: string): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !PASSING.has(code) || Date.now() > deadline) return false;
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function findAdminUrl(): Promise<string | undefined> {
  for (const url of candidateUrls()) if (await answers(url)) return url;
  return undefined;
}

/** The maintenance database's URL (where test databases are created), or undefined with none reachable. */
export const ADMIN_DATABASE_URL: string | undefined = await findAdminUrl();

function parseStores(value: string): StoreKind[] {
  const kinds = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const kind of kinds) {
    if (kind !== 'sqlite' && kind !== 'postgres') throw new Error(`FOODLOOKUP_TEST_STORES: unknown store "${kind}" (sqlite, postgres)`);
  }
  return [...new Set(kinds as StoreKind[])];
}

function chooseStores(): readonly StoreKind[] {
  const asked = process.env['FOODLOOKUP_TEST_STORES'];
  const stores: StoreKind[] = asked ? parseStores(asked) : ADMIN_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const wantsPostgres = asked ? stores.includes('postgres') : process.env['CI'] === 'true';
  // CI must run the suite on both stores: a PostgreSQL that could not be reached there is a
  // failure of the run, not a reason to test less.
  if (wantsPostgres && !ADMIN_DATABASE_URL) {
    throw new Error(`the tests must run on PostgreSQL (${asked ? 'FOODLOOKUP_TEST_STORES' : 'CI=true'}) but none is reachable: ${NO_POSTGRES}`);
  }
  return stores;
}

/** The stores the integration tests loop over: $FOODLOOKUP_TEST_STORES, else SQLite and, when reachable, PostgreSQL. */
export const TEST_STORES: readonly StoreKind[] = chooseStores();

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  if (!ADMIN_DATABASE_URL) throw new Error(NO_POSTGRES);
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const made = new Set<string>();
// Registered when this module loads, so on the file's root: an `after` registered inside a
// `before` hook would run as soon as that hook ends. Whatever a test did not drop itself is
// dropped when its file ends.
after(async () => {
  for (const url of made) await dropTestDatabase(url);
});

/**
 * A fresh, empty database `fl_<random>` and its URL, or undefined when no PostgreSQL is reachable
 * (the caller skips with NO_POSTGRES). Dropped by dropTestDatabase, or else when the file ends.
 */
export async function testDatabaseUrl(): Promise<string | undefined> {
  if (!ADMIN_DATABASE_URL) return undefined;
  const name = `fl_${randomBytes(6).toString('hex')}`;
  await onAdmin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`));
  const url = withDatabase(ADMIN_DATABASE_URL, name);
  made.add(url);
  return url;
}

/** Drops a database made by testDatabaseUrl, ending the connections still open to it. */
export async function dropTestDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^fl_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${name}`);
  made.delete(url);
  await onAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
