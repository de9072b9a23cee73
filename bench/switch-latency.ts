/**
 * What a PostgreSQL replica's requests wait for while it takes a new catalogue version: a
 * server (`serve --database-url`, one worker pinned to core 0) answers type-ahead searches after
 * words (scenario 12's) one at a time, an import of one changed food makes a new version of every
 * food, and the requests' times are summed up over two windows: from the import's end until the
 * replica answers from the new version, and the 400 requests after that; with the private memory
 * (RssAnon) of the server's largest process before the import and at its peak since. The load goes on
 * during the import too (a few requests a second, not counted). Alternate runs of two builds
 * (`--cli`) to compare them: a run's figures move a lot with the machine.
 *
 *   node dist/bench/switch-latency.js [--database-url URL] [--runs 2] [--cli OTHER/dist/src/cli/main.js]
 *
 * The database must hold the bench's catalogue of 1,000,000 foods (`npm run bench -- --store
 * postgres` imports it into `foodlookup_bench_1000000`); the queries and the changed food come
 * from bench/.cache (the SQLite catalogue and its .jsonl).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, ROOT, backgroundDone, pin, serverProcesses, startProcess, statusKiB, stop } from './harness.js';
import { benchDatabaseUrl } from './postgres.js';
import { AUTH, TOKEN, samples } from './scenarios.js';

const FOODS = 1_000_000;
const AFTER = 400;
const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: benchDatabaseUrl(FOODS) },
    runs: { type: 'string', default: '1' },
    cli: { type: 'string', default: CLI },
  },
});
const databaseUrl = values['database-url'];
const queries = samples(join(ROOT, `bench/.cache/catalog-${FOODS}.db`)).typeAheadAfterWords;

/** The catalogue's first food, as its .jsonl has it (the file's head only: it is ~900 MB). */
function firstFood(): Record<string, unknown> {
  const head = Buffer.alloc(32 << 20);
  const fd = openSync(join(ROOT, `bench/.cache/catalog-${FOODS}.jsonl`), 'r');
  const read = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const line = head.subarray(0, read).toString('utf8').split('\n').find((l) => l.includes('"kind":"food"'));
  if (line === undefined) throw new Error('no food in the head of the catalogue .jsonl');
  return JSON.parse(line) as Record<string, unknown>;
}

interface Window { readonly times: number[] }

function summary(label: string, { times }: Window): string {
  const sorted = times.slice().sort((a, b) => a - b);
  const at = (q: number): string => (sorted.length === 0 ? '-' : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1));
  const slow = times.filter((ms) => ms > 100);
  return `${label}: ${times.length} requests, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms; ` +
    `${slow.length} over 100 ms (${slow.reduce((a, b) => a + b, 0).toFixed(0)} ms in all)`;
}

async function run(index: number): Promise<void> {
  const [command, args] = pin('0', process.execPath, [values.cli, 'serve', '--database-url', databaseUrl, '--port', '0', '--workers', '1']);
  const { child, url } = await startProcess(command, args, { FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'warn' });
  let sampling: NodeJS.Timeout | undefined;
  try {
    await backgroundDone(url, 1);
    const pids = serverProcesses(child.pid!);
    const privateMiB = (): number => Math.max(...pids.map((pid) => statusKiB(pid, 'RssAnon') / 1024));
    const steadyMiB = privateMiB();
    let peakMiB = steadyMiB;
    sampling = setInterval(() => (peakMiB = Math.max(peakMiB, privateMiB())), 50);
    // A word of its own in the changed food's name: found only once the replica has switched.
    const mark = `switchmark${Date.now()}`;
    const food = firstFood();
    const file = join(ROOT, 'bench/.cache', 'switch-latency.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...food, name: `${String(food['name'])} ${mark}` })}\n`);
    const search = async (query: string): Promise<{ total: number }> => {
      for (let tries = 0; ; tries++) {
        try {
          const response = await fetch(`${url}/v1/foods?query=${encodeURIComponent(query)}`, { headers: AUTH });
          const body = (await response.json()) as { metadata?: { total: number } };
          return { total: body.metadata?.total ?? -1 };
        } catch (error) {
          // A kept-alive connection the server closed while the import ran: once more on a new one.
          if (tries > 0) throw error;
        }
      }
    };
    let exited: number | undefined;
    let code: number | null = null;
    const importer = spawn(process.execPath, [values.cli, 'import', 'catalog', file, '--database-url', databaseUrl], { stdio: 'ignore' });
    importer.once('exit', (c) => {
      code = c;
      exited = performance.now();
    });
    const between: Window = { times: [] };
    const after: Window = { times: [] };
    let switchedAt: number | undefined;
    for (let q = 0; after.times.length < AFTER; q++) {
      const started = performance.now();
      await search(queries[q % queries.length]!);
      const ms = performance.now() - started;
      if (switchedAt !== undefined) after.times.push(ms);
      else if (exited !== undefined) between.times.push(ms);
      if (exited === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      } else if (switchedAt === undefined) {
        if (code !== 0) throw new Error(`the import exited with ${String(code)}`);
        if ((await search(mark)).total > 0) switchedAt = performance.now();
        else if (performance.now() - exited > 120_000) throw new Error('no switch within 120 s of the import');
      }
    }
    clearInterval(sampling);
    process.stdout.write(`run ${index + 1}: switched ${Math.round(switchedAt! - exited!)} ms after the import's end; ` +
      `private memory ${steadyMiB.toFixed(0)} → peak ${peakMiB.toFixed(0)} MiB\n`);
    process.stdout.write(`  ${summary('between the import and the switch', between)}\n`);
    process.stdout.write(`  ${summary(`the ${AFTER} requests after it`, after)}\n`);
  } finally {
    clearInterval(sampling);
    await stop(child);
  }
}

for (let i = 0; i < Number(values.runs); i++) await run(i);
