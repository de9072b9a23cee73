import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../src/config.js';

test('workers: one per CPU when quotas are shared through Redis, else one; a flag or FOODLOOKUP_WORKERS decides', () => {
  assert.equal(loadConfig({}, {}).workers, 1);
  assert.equal(loadConfig({}, { REDIS_URL: 'redis://127.0.0.1:6379' }).workers, Math.min(64, availableParallelism()));
  assert.equal(loadConfig({ workers: '3' }, {}).workers, 3);
  assert.equal(loadConfig({}, { FOODLOOKUP_WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:6379' }).workers, 2);
  assert.throws(() => loadConfig({ workers: '0' }, {}), /workers must be 1–64/);
});
