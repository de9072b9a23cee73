import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { openPool } from '../../src/store/postgres/connection.js';
import { copyBinaryRows } from '../../src/store/postgres/copy-binary.js';
import { readSearchBlobs } from '../../src/store/postgres/search-store.js';
import { ADMIN_DATABASE_URL, dropTestDatabase, NO_POSTGRES, testDatabaseUrl } from '../helpers/postgres.js';

/**
 * COPY's binary format as a real PostgreSQL writes it, read by copy-binary.ts in chunks cut
 * everywhere (a value, a length, the header split across them), and a version's search blobs
 * read through it: every byte as stored, also those that are not UTF-8.
 */
describe("COPY's binary format, read", { skip: ADMIN_DATABASE_URL ? false : NO_POSTGRES }, () => {
  let url: string;
  let pool: pg.Pool;
  let client: pg.PoolClient;
  /** The copy's bytes, whole. */
  let output: Buffer;
  const big = randomBytes(300_000);
  const expected: [string, Buffer | null][] = [
    ['bytes', Buffer.from([0x00, 0xff, 0x80, 0xfe])],
    ['empty', Buffer.alloc(0)],
    ['null', null],
    ['big', big],
    ['ünïcode ✓', Buffer.from('not UTF-8: \xe9', 'latin1')],
  ];

  before(async () => {
    url = (await testDatabaseUrl())!;
    // No request bound on this pool: the test's own COPY reads (pg-copy-streams') would leave its timer running.
    pool = openPool(url, { max: 2, statementTimeoutMs: 0 });
    client = await pool.connect();
    await client.query('CREATE SCHEMA v');
    await client.query('CREATE TABLE v.search_blobs (key text PRIMARY KEY, value bytea)');
    for (const [key, value] of expected) await client.query('INSERT INTO v.search_blobs VALUES ($1, $2)', [key, value]);
    const chunks: Buffer[] = [];
    for await (const chunk of client.query(copyTo('COPY (SELECT key, value FROM v.search_blobs ORDER BY key) TO STDOUT (FORMAT binary)'))) chunks.push(chunk as Buffer);
    output = Buffer.concat(chunks);
  });

  after(async () => {
    client.release();
    await pool.end();
    await dropTestDatabase(url);
  });

  const inChunks = (bytes: Buffer, size: number): Readable => {
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
    return Readable.from(chunks);
  };
  const read = async (stream: Readable): Promise<[string, Buffer | null][]> => {
    const rows: [string, Buffer | null][] = [];
    for await (const [key, value] of copyBinaryRows(stream)) rows.push([Buffer.from(key!).toString('utf8'), value === null ? null : Buffer.from(value!)]);
    return rows;
  };
  const sorted = [...expected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

  for (const size of [1, 2, 3, 7, 19, 4096, 65_536, Infinity]) {
    it(`gives every row's fields as stored, in chunks of ${size} bytes`, async () => {
      assert.deepEqual(await read(inChunks(output, size === Infinity ? output.length : size)), sorted);
    });
  }

  it('refuses output cut short, or not in the binary format', async () => {
    await assert.rejects(read(inChunks(output.subarray(0, output.length - 2), 64)), /ended before its trailer/);
    await assert.rejects(read(inChunks(output.subarray(0, 200_000), 64)), /ended before its trailer/);
    const text: Buffer[] = [];
    for await (const chunk of client.query(copyTo('COPY v.search_blobs TO STDOUT'))) text.push(chunk as Buffer);
    await assert.rejects(read(Readable.from([Buffer.concat(text)])), /not in the binary format/);
  });

  it("reads a version's search blobs whole, leaves no timer behind, and refuses a NULL among them", async () => {
    await client.query("DELETE FROM v.search_blobs WHERE key = 'null'");
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const blobs = await readSearchBlobs(client, 'v', 60_000);
    assert.equal(timers(), before, 'the read left its time bound running');
    assert.deepEqual(new Map([...blobs].map(([k, v]) => [k, Buffer.from(v)])), new Map(expected.filter(([k]) => k !== 'null')));
    await client.query("INSERT INTO v.search_blobs VALUES ('null', NULL)");
    await assert.rejects(readSearchBlobs(client, 'v', 10_000), /holds a NULL/);
  });
});
