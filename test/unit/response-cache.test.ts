import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseCache } from '../../src/http/response-cache.js';

const body = (text: string): Buffer => Buffer.from(text);

describe('response cache admission (a request is stored on its second sighting)', () => {
  test('the first sighting is not admitted, the second is, and a third starts over', () => {
    const cache = new ResponseCache();
    const key = ResponseCache.key('/v1/foods?query=apple', 1);
    assert.equal(cache.admit(key), false);
    assert.equal(cache.admit(key), true);
    assert.equal(cache.admit(key), false, 'an admitted request is forgotten by the doorkeeper: the cache holds it now');
  });

  test('a new catalogue version is a new request', () => {
    const cache = new ResponseCache();
    assert.equal(cache.admit(ResponseCache.key('/v1/foods?query=apple', 1)), false);
    assert.equal(cache.admit(ResponseCache.key('/v1/foods?query=apple', 2)), false);
  });

  test('the doorkeeper remembers a bounded number of requests, oldest forgotten first', () => {
    const cache = new ResponseCache(1024 * 1024, 10, 2);
    for (const q of ['a', 'b', 'c']) assert.equal(cache.admit(`1|/v1/foods?query=${q}`), false);
    assert.equal(cache.admit('1|/v1/foods?query=a'), false, 'a was the oldest of three with room for two');
    assert.equal(cache.admit('1|/v1/foods?query=c'), true);
  });

  test('stored bodies are bounded by entries and bytes, least recently used out first', () => {
    const cache = new ResponseCache(1024, 2);
    cache.set('a', body('A'));
    cache.set('b', body('B'));
    assert.deepEqual(cache.get('a'), body('A'));
    cache.set('c', body('C'));
    assert.equal(cache.get('b'), undefined, 'b was the least recently used');
    assert.deepEqual(cache.get('a'), body('A'));
    cache.set('big', Buffer.alloc(1024 / 16 + 1));
    assert.equal(cache.get('big'), undefined, 'a body over a sixteenth of the budget is not stored');
  });

  test('a cache of 0 bytes (--response-cache-mb 0) admits nothing', () => {
    const cache = new ResponseCache(0);
    const key = ResponseCache.key('/v1/foods?query=apple', 1);
    assert.equal(cache.admit(key), false);
    assert.equal(cache.admit(key), false);
  });
});
