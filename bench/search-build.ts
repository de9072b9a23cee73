/**
 * How long the search data of a catalogue takes to build, and how big it is: the part of an
 * import that src/search does (README.md there).
 *
 *   node dist/bench/search-build.js --db bench/.cache/catalog-1000000.db [--runs 3]
 *
 * Builds it inside a transaction that is rolled back (the database is left as it was), timing
 * the rows read from SQLite and the build apart, then lists the blobs by kind.
 */
import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { buildSearchData } from '../src/search/build.js';
import { sqliteSearchSource } from '../src/store/sqlite/search-store.js';

const { values } = parseArgs({ options: { db: { type: 'string' }, runs: { type: 'string', default: '1' } } });
if (!values.db) throw new Error('--db PATH is required');
const db = new Database(values.db, { readonly: true });
for (let run = 0; run < Number(values.runs); run++) {
  const source = sqliteSearchSource(db);
  // The rows alone, as the build reads them.
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let started = performance.now();
  let cpuStarted = cpu();
  let foods = 0;
  for (const _ of source.foods()) foods++;
  const reading = performance.now() - started;
  const readingCpu = cpu() - cpuStarted;
  const sizes = new Map<string, { count: number; bytes: number }>();
  started = performance.now();
  cpuStarted = cpu();
  buildSearchData(source, {
    put: (name, bytes) => {
      const kind = name.includes('/') ? name.slice(0, name.indexOf('/')) : name;
      const s = sizes.get(kind) ?? { count: 0, bytes: 0 };
      s.count++;
      s.bytes += bytes.byteLength;
      sizes.set(kind, s);
    },
  });
  const building = performance.now() - started;
  const buildingCpu = cpu() - cpuStarted;
  // CPU time too: on a shared machine the wall clock measures the neighbours as well.
  process.stdout.write(`run ${run + 1}: ${foods.toLocaleString('en')} foods; reading the rows ${(reading / 1000).toFixed(1)} s ` +
    `(CPU ${(readingCpu / 1000).toFixed(1)} s), the whole build (reading included) ${(building / 1000).toFixed(1)} s (CPU ${(buildingCpu / 1000).toFixed(1)} s)\n`);
  if (run === 0) {
    for (const [kind, s] of [...sizes].sort((a, b) => b[1].bytes - a[1].bytes)) {
      process.stdout.write(`  ${kind.padEnd(12)} ${String(s.count).padStart(7)} blobs ${(s.bytes / 2 ** 20).toFixed(1).padStart(8)} MiB\n`);
    }
  }
}
db.close();
