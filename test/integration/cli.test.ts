import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { importInto, runCli } from '../helpers/cli.js';
import { CLI, ROOT, fixturePath, tempDir } from '../helpers/paths.js';
import { formatNames } from '../../src/importers/formats.js';
import '../../src/importers/register-all.js';

const tmp = tempDir();
after(() => tmp.cleanup());

/** A port something else already listens on. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

/** `foodlookup start` until it listens (or exits), then SIGTERM: what it wrote to each stream. */
function runStart(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'start', ...args], {
      cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', FOODLOOKUP_TOKENS: 'cli-test-token' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      // Stopped once it has said everything it says at start (the token hint follows "listening").
      if (/listening on http:\/\/\S+/.test(stderr) && /\n.*\n/.test(stderr.slice(stderr.indexOf('listening on')))) child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the CLI as an operator meets it', () => {
  const db = join(tmp.dir, 'cli.db');

  test('--version prints the package version', async () => {
    const { code, stdout } = await runCli(['--version']);
    assert.equal(code, 0);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(stdout, `foodlookup ${pkg.version}\n`);
  });

  test('the top-level help lists every import format', async () => {
    const { code, stdout } = await runCli(['--help']);
    assert.equal(code, 0);
    const listed = /formats: ([^;)]+)/.exec(stdout)?.[1]?.split(', ');
    assert.deepEqual(listed?.sort(), [...formatNames()].sort());
  });

  test('an unknown flag gets our own one-line usage error', async () => {
    for (const [args, line] of [
      [['serve', '--bogus'], "foodlookup serve: unknown option '--bogus' (see 'foodlookup serve --help')"],
      [['import', 'catalog', 'x.json', '--regoin', 'au'], "foodlookup import: unknown option '--regoin' (see 'foodlookup import --help')"],
      [['serve', '--port'], "foodlookup serve: option '--port' needs a value (see 'foodlookup serve --help')"],
      [['--verbose'], "foodlookup: unknown option '--verbose' (see 'foodlookup --help')"],
    ] as const) {
      const { code, stdout, stderr } = await runCli(args);
      assert.equal(code, 2, args.join(' '));
      assert.equal(stderr, `${line}\n`);
      assert.equal(stdout, '');
    }
  });

  test('the import summary counts foods apart from brands, categories and tags; an import that adds nothing says why', async () => {
    const first = await importInto(db, 'catalog', [fixturePath('catalog.json')]);
    assert.match(first.stdout, /^imported 7 foods: 7 added, 0 changed, 0 unchanged, 0 skipped; brands, categories and tags: 15 added, 0 changed, 0 unchanged; in \d+\.\d s\n$/);
    const again = await importInto(db, 'catalog', [fixturePath('catalog.json')]);
    assert.match(again.stdout, /^imported 7 foods: 0 added, 0 changed, 7 unchanged, 0 skipped;/);
    assert.equal(again.stderr, 'nothing was added or changed: every record is already in the catalogue as it is (re-importing the same data changes nothing)\n');
  });

  test('progress lines also when the output is not a terminal', async () => {
    const result = await runCli(['import', 'catalog', fixturePath('catalog.json'), '--db', join(tmp.dir, 'progress.db')], { FOODLOOKUP_PROGRESS_MS: '0' });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^progress: 22 records, [\d,]+\/s/m);
    assert.match(result.stderr, /^progress: 22 records; checking the catalogue/m);
  });

  test('an Open Food Facts API product file imports with off', async () => {
    const saved = fixturePath('off/api-product-7622210288257.json');
    const france = await runCli(['import', 'off', saved, '--db', join(tmp.dir, 'off.db')]);
    assert.equal(france.code, 0, france.stderr);
    assert.match(france.stderr, /^skipped api-product-7622210288257\.json product: product 7622210288257 is not sold in Australia or the United States \(en:france\)$/m);
    assert.match(france.stderr, /^nothing was imported: every record was skipped/m);
    // The same file as if the product were sold in the United States (still pretty-printed).
    const answer = JSON.parse(readFileSync(saved, 'utf8')) as { product: Record<string, unknown> };
    answer.product['countries_tags'] = ['en:united-states'];
    const us = join(tmp.dir, 'api-product-us.json');
    writeFileSync(us, JSON.stringify(answer, null, 4));
    const imported = await runCli(['import', 'off', us, '--db', join(tmp.dir, 'off.db')]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^imported 1 food: 1 added/);
  });

  test('a file of the wrong kind is named for what it is not', async () => {
    const xlsx = join(tmp.dir, 'ausnut.xlsx');
    copyFileSync(fixturePath('au-fsanz/afcd-release2-nutrient-file.trimmed.xlsx'), xlsx);
    const result = await runCli(['import', 'ausnut', xlsx, '--db', join(tmp.dir, 'wrong.db')]);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `import failed, nothing was changed: ${xlsx}: this is not an AUSNUT CSV: it is a zip archive or an Excel workbook (save the sheet as CSV, UTF-8, or unzip it)\n`);
  });

  test('a port in use is one clear message from serve and from start', async () => {
    const { port, server } = await takenPort();
    try {
      const line = `port ${port} on 127.0.0.1 is already in use (another foodlookup, or another server): stop it, or choose another port with --port N (PORT)`;
      const serve = await runCli(['serve', '--db', db, '--port', String(port)]);
      assert.equal(serve.code, 1);
      assert.equal(serve.stderr, `foodlookup serve: ${line}\n`);
      const start = await runCli(['start', '--db', db, '--port', String(port)]);
      assert.equal(start.code, 1);
      assert.match(start.stderr, new RegExp(`^foodlookup start: ${line.replace(/[()]/g, '\\$&')}$`, 'm'));
      assert.equal(start.stderr.match(/already in use/g)?.length, 1);
    } finally {
      server.close();
    }
  });

  test('start: JSON logs alone on stdout, start-up lines on stderr, and how to get a token when the first one is lost', async () => {
    const { stdout, stderr } = await runStart(['--db', db, '--port', '0']);
    const lines = stdout.trim().split('\n');
    assert.ok(lines.length > 0);
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.match(stderr, /^foodlookup listening on http:\/\/127\.0\.0\.1:\d+$/m);
    assert.match(stderr, new RegExp(`Lost it\\? Create another:\\n  npx foodlookup tokens create --name dev --db ${db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n`));
    assert.doesNotMatch(stderr, /^\{/m, 'no JSON log line on stderr');
  });
});
