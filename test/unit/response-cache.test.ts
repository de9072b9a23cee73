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

  test('stored bodies are bounded by entries in two generations: what is asked for again stays', () => {
    const cache = new ResponseCache(1024, 4); // a generation of 2 entries
    cache.set('a', body('A'));
    cache.set('b', body('B'));
    assert.deepEqual(cache.get('a'), body('A'), 'found in the older generation and copied up');
    cache.set('c', body('C'));
    assert.equal(cache.get('b'), undefined, 'b was not asked for while its generation was young');
    assert.deepEqual(cache.get('a'), body('A'));
    assert.deepEqual(cache.get('c'), body('C'));
  });

  test('and by bytes; a body over a sixteenth of the bound is sent but not stored', () => {
    const cache = new ResponseCache(1600, 1000); // a generation of 800 bytes, bodies of up to 100
    for (let i = 0; i < 16; i++) cache.set(`k${i}`, Buffer.alloc(100, i));
    assert.equal(cache.get('k0'), undefined, 'two generations of 8 bodies later');
    for (let i = 8; i < 16; i++) assert.deepEqual(cache.get(`k${i}`), Buffer.alloc(100, i));
    const big = cache.set('big', Buffer.alloc(101, 7));
    assert.deepEqual(big, Buffer.alloc(101, 7));
    assert.equal(cache.get('big'), undefined);
  });

  test('a text is stored as its UTF-8 bytes, and bytes already sent never change', () => {
    const cache = new ResponseCache(4096, 8);
    const text = '{"name":"Crème brûlée, 大豆"}';
    const sent = cache.set('t', text);
    assert.deepEqual(sent, Buffer.from(text));
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, `{"i":${i},"pad":"${'x'.repeat(200)}"}`);
    assert.equal(sent.toString(), text, 'slabs are never written again');
  });

  test('a cache of 0 bytes (--response-cache-mb 0) admits nothing', () => {
    const cache = new ResponseCache(0);
    const key = ResponseCache.key('/v1/foods?query=apple', 1);
    assert.equal(cache.admit(key), false);
    assert.equal(cache.admit(key), false);
  });
});
