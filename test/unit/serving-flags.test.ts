import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SERVING_V8_FLAGS, servingExecArgv } from '../../src/cli/serve.js';

test('the serving V8 flags are added after node’s own arguments', () => {
  assert.deepEqual(servingExecArgv('', ['--enable-source-maps']), ['--enable-source-maps', ...SERVING_V8_FLAGS]);
});

test('a flag the user set, in any spelling, is theirs', () => {
  const argv = servingExecArgv('--max-semi-space-size=8', ['--no-single_threaded_gc', '--heap_growing_percent=100']);
  assert.deepEqual(argv, ['--no-single_threaded_gc', '--heap_growing_percent=100']);
  assert.ok(!servingExecArgv('', ['--single-threaded-gc']).slice(1).includes('--single-threaded-gc'), 'not given twice');
});
