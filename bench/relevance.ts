/**
 * `npm run relevance`: search quality on a judged set of real food-diary searches.
 *
 *   npm run relevance -- [--set PATH] [--out bench/RELEVANCE.md] [--worst N] [--db PATH]
 *
 * Imports the bundled USDA SR21 data through the real `foodlookup import usda-sr` into a fresh
 * database (or uses `--db`), starts the real `foodlookup serve` on it, and sends every query of
 * the set over HTTP as the set's README says: `GET /v1/foods?query=q&limit=10`, one at a time;
 * a `prefix` entry (type-ahead) is sent as fts with its last word marked `*`. Results map to
 * NDB numbers through the ids (uuid v5 of `us:` + NDB), never through names. Prints s@1, s@3,
 * MRR, nDCG@10 and the zero-result rate, overall and per kind, then the worst queries with what
 * came back. The set defaults to shared/relevance/dev-set.json beside the project (the nearest
 * `shared/` folder above it); a held-out set of the same format is given with `--set`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ID_NAMESPACES, deriveId } from '../src/domain/ids.js';
import { backgroundDone } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli/main.js');
const TOKEN = 'relevance-token';
const K = 10;

interface Judged { readonly ndb: string; readonly grade: number; readonly name: string }
interface Entry { readonly q: string; readonly type: 'fts' | 'prefix'; readonly kind: string; readonly relevant: readonly Judged[] }
interface Hit { readonly foodId: string; readonly name: string }

interface Scored {
  readonly entry: Entry;
  readonly sent: string;
  readonly hits: readonly Hit[];
  readonly total: number;
  readonly grades: readonly number[];
  readonly s1: number;
  readonly s3: number;
  readonly rr: number;
  readonly ndcg: number;
  readonly zero: number;
  readonly ms: number;
}

/** The nearest `shared/relevance/dev-set.json` in the project's folder or a folder above it. */
function defaultSet(): string {
  for (let dir = resolve(ROOT); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared/relevance/dev-set.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('no shared/relevance/dev-set.json beside the project: give the judged set with --set PATH');
  }
}

/** What the user has typed, as the service receives it: a type-ahead's last word is a prefix. */
export function sentQuery(entry: Pick<Entry, 'q' | 'type'>): string {
  return entry.type === 'prefix' ? `${entry.q.trimEnd()}*` : entry.q;
}

const gain = (grade: number): number => 2 ** grade - 1;
const discount = (rank: number): number => Math.log2(rank + 1);

/** The set's metrics for one query's ranked grades (README: Metrics). */
export function score(grades: readonly number[], judged: readonly number[]): { s1: number; s3: number; rr: number; ndcg: number } {
  const top = grades.slice(0, K);
  const firstGood = top.findIndex((g) => g >= 2);
  const dcg = top.reduce((sum, g, i) => sum + gain(g) / discount(i + 1), 0);
  const ideal = [...judged].sort((a, b) => b - a).slice(0, K).reduce((sum, g, i) => sum + gain(g) / discount(i + 1), 0);
  return {
    s1: firstGood === 0 ? 1 : 0,
    s3: firstGood >= 0 && firstGood < 3 ? 1 : 0,
    rr: firstGood >= 0 ? 1 / (firstGood + 1) : 0,
    ndcg: ideal === 0 ? 0 : dcg / ideal,
  };
}

function startServe(db: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', '0'], {
      env: { ...process.env, FOODLOOKUP_TOKENS: TOKEN, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (d: Buffer): void => {
      output += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolvePromise({ child, url: match[1]! });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output.slice(-500)}`)));
  });
}

async function run(url: string, entries: readonly Entry[]): Promise<Scored[]> {
  const ndbOf = new Map<string, string>();
  const authorization = `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`;
  const out: Scored[] = [];
  for (const entry of entries) {
    for (const judged of entry.relevant) ndbOf.set(deriveId(ID_NAMESPACES.usdaFood, `us:${judged.ndb}`), judged.ndb);
    const sent = sentQuery(entry);
    const started = performance.now();
    const response = await fetch(`${url}/v1/foods?query=${encodeURIComponent(sent)}&limit=${K}&fields=foodId,name`, { headers: { authorization } });
    const ms = performance.now() - started;
    if (!response.ok) throw new Error(`${sent}: HTTP ${response.status} ${await response.text()}`);
    const body = await response.json() as { metadata: { total: number }; foods: Hit[] };
    const gradeOf = new Map(entry.relevant.map((j) => [j.ndb, j.grade]));
    const seen = new Set<string>();
    // Repeated results count once (README): a repeat scores nothing.
    const grades = body.foods.map((hit) => {
      const ndb = ndbOf.get(hit.foodId);
      const first = !seen.has(hit.foodId);
      seen.add(hit.foodId);
      return first && ndb !== undefined ? gradeOf.get(ndb) ?? 0 : 0;
    });
    const metrics = score(grades, entry.relevant.map((j) => j.grade));
    out.push({ entry, sent, hits: body.foods, total: body.metadata.total, grades, ...metrics, zero: body.foods.length === 0 ? 1 : 0, ms });
  }
  return out;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const f2 = (x: number): string => x.toFixed(2);

function report(results: readonly Scored[], setPath: string, worst: number): string {
  const kinds = [...new Set(results.map((r) => r.entry.kind))];
  const row = (label: string, rs: readonly Scored[]): string =>
    `| ${label} | ${rs.length} | ${f2(mean(rs.map((r) => r.s1)))} | ${f2(mean(rs.map((r) => r.s3)))} | ${f2(mean(rs.map((r) => r.rr)))} | ` +
    `${f2(mean(rs.map((r) => r.ndcg)))} | ${f2(mean(rs.map((r) => r.zero)))} |`;
  const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
  const lines = [
    '# Relevance on the judged set',
    '',
    `\`npm run relevance\` on ${new Date().toISOString().slice(0, 10)}: the set \`${setPath.replace(/^.*\/(shared\/)/, '$1')}\` (${results.length} queries), the bundled USDA SR21`,
    'data imported through `foodlookup import usda-sr`, each query sent to `foodlookup serve` as',
    '`GET /v1/foods?query=…&limit=10` (type-ahead entries with their last word marked `*`).',
    'Metrics as the set\'s README defines them (k = 10).',
    '',
    '| kind | n | s@1 | s@3 | MRR | nDCG@10 | zero |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('**all**', results),
    ...kinds.map((kind) => row(kind, results.filter((r) => r.entry.kind === kind))),
    '',
    `Latency over HTTP, one request at a time (the service on the 7,413-food catalogue): p50 ${f2(latencies[Math.floor(latencies.length / 2)] ?? 0)} ms, max ${f2(latencies[latencies.length - 1] ?? 0)} ms.`,
    '',
    `## The ${worst} worst queries (lowest nDCG@10)`,
    '',
    'Each with its top 3 (grade in brackets) and the total; then the best judged answer.',
    '',
  ];
  const sorted = [...results].sort((a, b) => a.ndcg - b.ndcg || a.rr - b.rr);
  for (const r of sorted.slice(0, worst)) {
    const best = [...r.entry.relevant].sort((a, b) => b.grade - a.grade)[0];
    const top = r.hits.slice(0, 3).map((h, i) => `${h.name} [${r.grades[i]}]`).join('; ');
    lines.push(`- \`${r.sent}\` (${r.entry.kind}) nDCG ${f2(r.ndcg)}: ${r.total === 0 ? 'no result' : `${top} (total ${r.total})`}; wanted: ${best?.name ?? '—'}`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      set: { type: 'string' },
      out: { type: 'string' },
      worst: { type: 'string', default: '15' },
      db: { type: 'string' },
    },
  });
  const setPath = resolve(values.set ?? defaultSet());
  const entries = JSON.parse(readFileSync(setPath, 'utf8')) as Entry[];
  const temp = values.db === undefined ? mkdtempSync(join(tmpdir(), 'foodlookup-relevance-')) : undefined;
  const db = values.db ?? join(temp!, 'sr21.db');
  try {
    if (temp !== undefined) {
      const imported = spawnSync(process.execPath, [CLI, 'import', 'usda-sr', join(ROOT, 'data/usda-sr21'), '--db', db], { encoding: 'utf8' });
      if (imported.status !== 0) throw new Error(`import failed: ${imported.stderr}`);
    }
    const server = await startServe(db);
    try {
      // Its searches of its own first (warm-searches.ts): the latency measured is a running server's.
      await backgroundDone(server.url, 1);
      const text = report(await run(server.url, entries), setPath, Number(values.worst));
      process.stdout.write(text);
      if (values.out) writeFileSync(values.out, text);
    } finally {
      server.child.removeAllListeners('exit');
      server.child.kill('SIGTERM');
    }
  } finally {
    if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await main();
