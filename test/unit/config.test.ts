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

test('response cache: 16 MiB unless a flag or FOODLOOKUP_RESPONSE_CACHE_MB says otherwise; 0 is allowed', () => {
  assert.equal(loadConfig({}, {}).responseCacheBytes, 16 * 2 ** 20);
  assert.equal(loadConfig({ 'response-cache-mb': '64' }, {}).responseCacheBytes, 64 * 2 ** 20);
  assert.equal(loadConfig({}, { FOODLOOKUP_RESPONSE_CACHE_MB: '0' }).responseCacheBytes, 0);
  assert.throws(() => loadConfig({ 'response-cache-mb': '1.5' }, {}), /response cache must be a whole number of MiB/);
  assert.throws(() => loadConfig({}, { FOODLOOKUP_RESPONSE_CACHE_MB: '-1' }), /response cache must be a whole number of MiB/);
});
