import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareDatabases } from '../../bench/compare-imports.js';
import { generate } from '../../bench/generate.js';
import { readCatalog } from '../../src/importers/catalog/reader.js';
import { ImportFailed, runImport, runImportFromFiles, type ImportOptions, type ImportSummary } from '../../src/importers/run-import.js';
import { SqliteCatalogStore } from '../../src/store/sqlite/store.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { snapshot } from '../helpers/db-snapshot.js';
import { u } from '../helpers/fixture-catalog.js';
import { fixturePath, tempDir } from '../helpers/paths.js';
import { randomCatalog, type RCatalog } from '../helpers/random-catalog.js';

/**
 * `foodlookup import` reads, checks and prepares records on worker threads
 * (runImportFromFiles): one, or several sharing the lines of `.jsonl` files; runImport does it
 * all on the importing thread. Each way must write the same catalogue, fail with the same
 * message leaving the catalogue as it was, and skip the same records. Small batches make the
 * workers cross many of them and wait for the importing thread.
 */
const SMALL_BATCHES = { FOODLOOKUP_IMPORT_BATCH: '7' };

/** Runs `body` with these variables set in this process (for runImportFromFiles called here). */
async function withEnv<T>(variables: Readonly<Record<string, string>>, body: () => Promise<T>): Promise<T> {
  const saved = Object.keys(variables).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, variables);
  try {
    return await body();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

let dir: string;
let cleanup: () => void;
/** A generated catalogue (bench/generate.ts): every member a food can have. */
let generated: string;
/** The generated catalogue imported through the CLI (the worker path). */
let start: string;
const base = randomCatalog(23, 400);

function lines(catalog: RCatalog): string[] {
  return [
    ...catalog.brands.map((b) => JSON.stringify({ kind: 'brand', ...b })),
    ...catalog.categories.map((c) => JSON.stringify({ kind: 'category', ...c })),
    ...catalog.tags.map((t) => JSON.stringify({ kind: 'tag', ...t })),
    ...catalog.foods.map((f) => JSON.stringify({ kind: 'food', ...f })),
  ];
}

function write(name: string, content: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${content.join('\n')}\n`);
  return path;
}

function copyOf(source: string, name: string): string {
  const path = join(dir, name);
  copyFileSync(source, path);
  return path;
}

function assertSame(a: string, b: string): void {
  const result = compareDatabases(a, b, 50);
  assert.equal(result.count, 0, result.list.join('\n'));
}

/** The summary the CLI printed, as runImport returns it. */
function printed(result: CliResult): ImportSummary {
  const match = /imported \d+ foods?: (\d+) added, (\d+) changed, (\d+) unchanged, (\d+) skipped; brands, categories and tags: (\d+) added, (\d+) changed, (\d+) unchanged/
    .exec(result.stdout);
  assert.ok(match, result.stdout + result.stderr);
  const [foodsAdded, foodsChanged, foodsUnchanged, skipped, othersAdded, othersChanged, othersUnchanged] = match.slice(1).map(Number) as [number, number, number, number, number, number, number];
  return {
    added: foodsAdded + othersAdded, changed: foodsChanged + othersChanged, unchanged: foodsUnchanged + othersUnchanged, skipped,
    foods: { added: foodsAdded, changed: foodsChanged, unchanged: foodsUnchanged },
  };
}

interface InThread {
  readonly summary?: ImportSummary;
  readonly error?: Error;
  readonly skips: string[];
}

/** The same import on the importing thread (runImport over the reader), as the CLI ran it before. */
async function inThread(db: string, paths: readonly string[], options: Partial<ImportOptions> = {}): Promise<InThread> {
  const store = new SqliteCatalogStore(db);
  const skips: string[] = [];
  try {
    const summary = await runImport(store, readCatalog(paths, {}), {
      replace: false, skipInvalid: false, onSkip: (message) => skips.push(message), ...options,
    });
    return { summary, skips };
  } catch (error) {
    return { error: error as Error, skips };
  } finally {
    await store.close();
  }
}

before(async () => {
  ({ dir, cleanup } = tempDir());
  generated = join(dir, 'generated.jsonl');
  const out = createWriteStream(generated);
  await generate({ foods: 1500, seed: 5, out });
  await new Promise<void>((resolve) => out.end(resolve));
  start = join(dir, 'start.db');
  const result = await runCli(['import', 'catalog', generated, '--db', start], SMALL_BATCHES);
  assert.equal(result.code, 0, result.stderr);
});

after(() => cleanup());

for (const readers of [1, 3]) describe(`import on worker threads (${readers} reading .jsonl)`, () => {
  const READERS = { FOODLOOKUP_IMPORT_READERS: String(readers) };
  const SMALL_SHARED = { ...SMALL_BATCHES, ...READERS };

  test('a first import writes what the in-thread import writes', async () => {
    const reference = join(dir, `start-in-thread-${readers}.db`);
    const { summary, error } = await inThread(reference, [generated]);
    assert.equal(error, undefined);
    assertSame(start, reference);
    const again = await runCli(['import', 'catalog', generated, '--db', join(dir, `start-again-${readers}.db`)], READERS);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(printed(again), summary);
  });

  test('changes, a given revisionId and a second file (.json) write what the in-thread import writes', async () => {
    const changed = readFileSync(generated, 'utf8').trimEnd().split('\n').map((line, i) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (i === 0) record['name'] = `${String(record['name'])} Renamed`;
      if (record['kind'] === 'food' && i % 10 === 0) record['name'] = `${String(record['name'])} changed`;
      if (record['kind'] === 'food' && i % 25 === 0) record['revisionId'] = u(700_000 + i);
      return JSON.stringify(record);
    });
    const paths = [write(`changed-${readers}.jsonl`, changed), fixturePath('catalog.json')];
    const viaWorker = copyOf(start, `changed-worker-${readers}.db`);
    const result = await runCli(['import', 'catalog', ...paths, '--db', viaWorker], SMALL_SHARED);
    assert.equal(result.code, 0, result.stderr);
    const reference = copyOf(start, `changed-in-thread-${readers}.db`);
    const { summary } = await inThread(reference, paths);
    assert.deepEqual(printed(result), summary);
    assert.ok(summary!.changed > 100 && summary!.added === 22, JSON.stringify(summary));
    assertSame(viaWorker, reference);
  });

  test('several .jsonl files with blank lines: blocks that go on into the next file write what the in-thread import writes', async () => {
    const all = readFileSync(generated, 'utf8').trimEnd().split('\n');
    // Blank lines (also a block of nothing else) and file ends in the middle of blocks of 7.
    const spaced = [...all.slice(0, 40), '', '', '', '', '', '', '', '', ...all.slice(40).flatMap((line, i) => (i % 97 === 0 ? [line, '  '] : [line]))];
    const paths = [write(`part-a-${readers}.jsonl`, spaced.slice(0, 503)), write(`part-b-${readers}.jsonl`, spaced.slice(503, 510)),
      write(`part-c-${readers}.jsonl`, spaced.slice(510))];
    const viaWorker = join(dir, `parts-worker-${readers}.db`);
    const result = await runCli(['import', 'catalog', ...paths, '--db', viaWorker], SMALL_SHARED);
    assert.equal(result.code, 0, result.stderr);
    const reference = join(dir, `parts-in-thread-${readers}.db`);
    const { summary, error } = await inThread(reference, paths);
    assert.equal(error, undefined);
    assert.deepEqual(printed(result), summary);
    assertSame(viaWorker, reference);
  });

  const foods = lines(base);
  const firstFood = foods.findIndex((line) => line.includes('"kind":"food"'));
  const withLine = (line: string): string[] => [...foods.slice(0, firstFood + 50), line, ...foods.slice(firstFood + 50)];
  const food = base.foods[0]!;
  for (const [name, what, content, extraPath, reason] of [
    ['bad-json', 'bad JSON on a line', withLine('{"kind":"food",'), undefined, /bad-json-\d\.jsonl:\d+: not valid JSON/],
    ['rule', 'a food that breaks a record rule', withLine(JSON.stringify({ kind: 'food', ...food, foodId: u(800_001), servings: [] })), undefined,
      /rule-\d\.jsonl:\d+: food\.servings must be a list of at least one serving/],
    ['rejected', 'a food the database rejects', withLine(JSON.stringify({ kind: 'food', ...food, foodId: u(800_002), brand: u(800_003) })), undefined,
      /rejected-\d\.jsonl:\d+: brand 00000000-0000-4000-8000-000000800003 does not exist/],
    ['second', 'a reader error after the records of the first file', foods, 'second.txt', /second\.txt: a catalogue file ends in \.json or \.jsonl/],
  ] as const) {
    test(`${what}: the import fails with the in-thread message and changes nothing`, async () => {
      const paths = [write(`${name}-${readers}.jsonl`, content), ...(extraPath ? [write(extraPath, [])] : [])];
      const target = copyOf(start, `${name}-${readers}-worker.db`);
      const before = snapshot(target);
      const result = await runCli(['import', 'catalog', ...paths, '--db', target], SMALL_SHARED);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, reason);
      assert.equal(snapshot(target), before, 'the database changed');
      const { error } = await inThread(copyOf(start, `${name}-${readers}-in-thread.db`), paths);
      assert.equal(result.stderr, `import failed, nothing was changed: ${error?.message}\n`);
    });
  }

  test('--skip-invalid skips and reports the same records as the in-thread import', async () => {
    const bad = [
      '{"kind":"food",',
      JSON.stringify({ kind: 'food', ...food, foodId: u(800_011), nutrients: { fat: -1 } }),
      JSON.stringify({ kind: 'food', ...food, foodId: u(800_012), brand: u(800_013) }),
      '{"kind":"spice"}',
    ];
    const path = write(`some-bad-${readers}.jsonl`, [...foods.slice(0, firstFood + 30), bad[0]!, ...foods.slice(firstFood + 30, firstFood + 90),
      bad[1]!, bad[2]!, ...foods.slice(firstFood + 90), bad[3]!]);
    const viaWorker = join(dir, `skip-worker-${readers}.db`);
    const result = await runCli(['import', 'catalog', path, '--db', viaWorker, '--skip-invalid'], SMALL_SHARED);
    assert.equal(result.code, 0, result.stderr);
    const reference = join(dir, `skip-in-thread-${readers}.db`);
    const { summary, skips } = await inThread(reference, [path], { skipInvalid: true });
    assert.equal(skips.length, 4);
    assert.equal(result.stderr, skips.map((message) => `skipped ${message}\n`).join(''));
    assert.deepEqual(printed(result), summary);
    assertSame(viaWorker, reference);
  });

  test('progress: the same record counts as in-thread, and the fraction read rises to 1', async () => {
    const reference: number[] = [];
    await inThread(join(dir, `progress-in-thread-${readers}.db`), [generated], { onRecords: (n) => reference.push(n) });
    const store = new SqliteCatalogStore(join(dir, `progress-worker-${readers}.db`));
    const counts: number[] = [];
    const fractions: number[] = [];
    try {
      await withEnv(READERS, () => runImportFromFiles(store, 'catalog', [generated], { onProgress: (f) => fractions.push(f) }, {
        replace: false, skipInvalid: false, onRecords: (n) => counts.push(n),
      }));
    } finally {
      await store.close();
    }
    assert.deepEqual(counts, reference);
    assert.ok(counts.length >= 3, `${counts.length} progress calls`);
    assert.ok(fractions.length > 0 && fractions.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= fractions[i - 1]!)), String(fractions));
    assert.equal(fractions.at(-1), 1);
  });

  /** A record the database rejects early in a long file: the worker is far from the end when the import fails. */
  function rejectedEarly(name: string): string {
    const more = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ kind: 'food', ...base.foods[i % base.foods.length]!, foodId: u(900_000 + i) }));
    const rejected = JSON.stringify({ kind: 'food', ...food, foodId: u(800_021), brand: u(800_022) });
    return write(name, [...foods.slice(0, firstFood + 20), rejected, ...more]);
  }

  test('a record the database rejects stops the worker early: its thread has ended when the import fails', async () => {
    const path = rejectedEarly(`early-in-process-${readers}.jsonl`);
    const threads = (): number => readdirSync('/proc/self/task').length;
    const store = new SqliteCatalogStore(copyOf(start, `early-in-process-${readers}.db`));
    const fractions: number[] = [];
    const before = threads();
    try {
      await assert.rejects(
        withEnv(READERS, () => runImportFromFiles(store, 'catalog', [path], { onProgress: (f) => fractions.push(f) }, { replace: false, skipInvalid: false })),
        (error: Error) => error instanceof ImportFailed && /early-in-process-\d\.jsonl:\d+: brand \S+ does not exist/.test(error.message),
      );
      assert.equal(threads(), before, 'the worker threads are gone');
    } finally {
      await store.close();
    }
    assert.ok((fractions.at(-1) ?? 0) < 0.5, `the worker read on to ${fractions.at(-1)}`);
  });

  test('a record the database rejects ends the CLI import with its message (no thread left to keep the process alive)', async () => {
    const target = copyOf(start, `early-${readers}.db`);
    const before = snapshot(target);
    const result = await runCli(['import', 'catalog', rejectedEarly(`early-${readers}.jsonl`), '--db', target], SMALL_SHARED, 60_000);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^import failed, nothing was changed: early-\d\.jsonl:\d+: brand 00000000-0000-4000-8000-000000800022 does not exist/);
    assert.equal(snapshot(target), before, 'the database changed');
  });
});
