/**
 * A search's page of rows on the SQLite store, alone, and how much of its cost is the CPU's
 * caches: 20 random foods by rid through the store's statement (store.ts `FOOD_JSON_BY_RID_SQL`),
 * with 0 to N MiB of other memory read between two pages, as a search engine's bitmaps and
 * lists are read between two pages in a server. Blocks of each setting alternate, so that every
 * setting sees the same machine. Prints this process's CPU time a page for each, and the
 * system's part of it (mostly mapping the file's pages into the process on first touch).
 *
 *   node dist/bench/sqlite-row-reads.js [--db bench/.cache/catalog-1000000.db] [--between 0,4,32] [--blocks 12] [--block 250]
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FOOD_JSON_BY_RID_SQL, mapForReading } from '../src/store/sqlite/store.js';
import { ROOT } from './harness.js';
import { seededRandom } from './random.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: join(ROOT, 'bench/.cache/catalog-1000000.db') },
    between: { type: 'string', default: '0,4,32' },
    blocks: { type: 'string', default: '12' },
    block: { type: 'string', default: '250' },
  },
});

const db = new Database(values.db, { readonly: true, fileMustExist: true });
mapForReading(db);
const ridLimit = db.prepare('SELECT max(rid) + 1 FROM foods').pluck().get() as number;
const rows = db.prepare(FOOD_JSON_BY_RID_SQL).raw();
const random = seededRandom(11);
const page = (): string => JSON.stringify(Array.from({ length: 20 }, () => Math.floor(random() * ridLimit)));

const settings = values.between.split(',').map(Number);
const other = settings.map((mib) => new Uint32Array((mib * 2 ** 20) / 4));
const totals = settings.map(() => ({ user: 0, system: 0, pages: 0 }));
let sink = 0;
// One read transaction for the whole run (the server holds one a loop turn): no read lock is
// taken and dropped a page.
db.exec('BEGIN');
for (let b = 0; b < Number(values.blocks) + 1; b++) {
  for (let s = 0; s < settings.length; s++) {
    const memory = other[s]!;
    for (let i = 0; i < Number(values.block); i++) {
      // One read per cache line, as a bitmap loop reads it.
      for (let w = 0; w < memory.length; w += 16) sink += memory[w]!;
      const addresses = page();
      const before = process.cpuUsage();
      sink += rows.all(addresses).length;
      const used = process.cpuUsage(before);
      // The first block of each setting maps the file's pages into this process: not counted.
      if (b === 0) continue;
      totals[s]!.user += used.user;
      totals[s]!.system += used.system;
      totals[s]!.pages++;
    }
  }
}
db.exec('COMMIT');
db.close();
process.stdout.write(`pages of 20 rows by random rids below ${ridLimit.toLocaleString('en')} (${sink > 0 ? 'read' : 'none read'})\n`);
settings.forEach((mib, s) => {
  const { user, system, pages } = totals[s]!;
  process.stdout.write(`${String(mib).padStart(4)} MiB read between pages: ${((user + system) / pages).toFixed(1).padStart(6)} µs of CPU a page, ` +
    `${(system / pages).toFixed(1)} of it the system's (${pages} pages)\n`);
});
