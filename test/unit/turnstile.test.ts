import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as loopComesRound } from 'node:timers/promises';
import { Turnstile } from '../../src/http/turnstile.js';

/** A clock the test moves: each request "works" by moving it. */
function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

test('turnstile: an idle server runs a request at once, and so does every request of an unspent turn', () => {
  const clock = fakeClock();
  const turnstile = new Turnstile(2, clock.now);
  const ran: number[] = [];
  for (let i = 0; i < 5; i++) turnstile.pass(() => { ran.push(i); clock.advance(0.3); });
  assert.deepEqual(ran, [0, 1, 2, 3, 4]);
  assert.equal(turnstile.queued, 0);
});

test('turnstile: a spent turn makes later requests wait for the loop to come round, and they then run oldest first, a turn at a time', async () => {
  const clock = fakeClock();
  const turnstile = new Turnstile(2, clock.now);
  const ran: string[] = [];
  const work = (name: string) => () => { ran.push(name); clock.advance(1); };
  // One poll's worth of requests: the first two fit the turn (2 ms), the rest wait.
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) turnstile.pass(work(name));
  assert.deepEqual(ran, ['a', 'b']);
  assert.equal(turnstile.queued, 5);

  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b', 'c', 'd'], 'one turn of 2 ms after the poll');
  // A request arriving now (the next poll) queues behind those already waiting.
  turnstile.pass(work('late'));
  assert.equal(turnstile.queued, 4);

  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b', 'c', 'd', 'e', 'f']);
  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'late']);
  assert.equal(turnstile.queued, 0);
});

test('turnstile: a request longer than a turn still runs, one per turn', async () => {
  const clock = fakeClock();
  const turnstile = new Turnstile(2, clock.now);
  const ran: string[] = [];
  for (const name of ['slow1', 'slow2', 'slow3']) turnstile.pass(() => { ran.push(name); clock.advance(10); });
  assert.deepEqual(ran, ['slow1']);
  await loopComesRound();
  assert.deepEqual(ran, ['slow1', 'slow2']);
  await loopComesRound();
  assert.deepEqual(ran, ['slow1', 'slow2', 'slow3']);
});

test('turnstile: once the loop has come round with nobody waiting, a spent turn is followed by a new one at once', async () => {
  const clock = fakeClock();
  const turnstile = new Turnstile(2, clock.now);
  const ran: string[] = [];
  turnstile.pass(() => { ran.push('a'); clock.advance(5); });
  await loopComesRound();
  turnstile.pass(() => { ran.push('b'); });
  assert.deepEqual(ran, ['a', 'b'], 'no wait: the loop has polled since the last turn began');
});
