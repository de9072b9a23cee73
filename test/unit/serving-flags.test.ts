import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { COLLECTION_FLAGS, SERVING_V8_FLAGS, servingExecArgv } from '../../src/cli/serve.js';

test('the serving V8 flags are added after node’s own arguments', () => {
  assert.deepEqual(servingExecArgv('', ['--enable-source-maps']), ['--enable-source-maps', ...SERVING_V8_FLAGS]);
});

test('a flag the user set, in any spelling, is theirs', () => {
  const argv = servingExecArgv('--max-semi-space-size=8', ['--no-single_threaded_gc', '--heap_growing_percent=100']);
  assert.deepEqual(argv, ['--no-single_threaded_gc', '--heap_growing_percent=100', '--no-turbo-inline-array-builtins']);
  assert.ok(!servingExecArgv('', ['--single-threaded-gc']).slice(1).includes('--no-parallel-scavenge'), 'the collection flags are theirs then');
});

test('the collection flags go together: one of them set by the user leaves out the rest', () => {
  const others = ['--max-semi-space-size=4', '--heap-growing-percent=40', '--no-turbo-inline-array-builtins'];
  assert.deepEqual(servingExecArgv('--concurrent_marking', []), others);
  assert.deepEqual(servingExecArgv('', ['--no-parallel-scavenge']), ['--no-parallel-scavenge', ...others]);
});

test('inlined array builtins are the user’s to turn back on', () => {
  assert.ok(!servingExecArgv('', ['--turbo_inline_array_builtins']).slice(1).some((flag) => flag.includes('inline-array-builtins')));
});

test('the collection flags are what --single-threaded-gc sets, but for concurrent sweeping, in this node', () => {
  const values = (flags: readonly string[]): Set<string> =>
    new Set(execFileSync(process.execPath, [...flags, '--print-flag-values', '-e', '0'], { encoding: 'utf8' }).split('\n'));
  const ours = values(SERVING_V8_FLAGS);
  const single = values([...SERVING_V8_FLAGS.filter((flag) => !COLLECTION_FLAGS.includes(flag)), '--single-threaded-gc']);
  const onlyOurs = [...ours].filter((flag) => !single.has(flag)).sort();
  const onlySingle = [...single].filter((flag) => !ours.has(flag)).sort();
  assert.deepEqual(onlyOurs, ['--concurrent-sweeping', '--no-single-threaded-gc']);
  assert.deepEqual(onlySingle, ['--no-concurrent-sweeping', '--single-threaded-gc']);
});
