import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { request as httpRequest, Agent } from 'node:http';
import { setImmediate as loopComesRound } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { ARRIVING_MS, Turnstile, installTurnstile } from '../../src/http/turnstile.js';
import { ROOT } from '../helpers/paths.js';

/**
 * A clock the test moves, and requests that work as a route handler does: after the release,
 * in a microtask (the handler awaits the catalogue state first), moving the clock.
 */
function harness(turnMs: number, arrivingTurnMs = turnMs): {
  turnstile: Turnstile;
  ran: string[];
  request: (name: string, ms: number) => void;
  /** Time passing outside any request (the loop accepting connections, reading sockets). */
  advance: (ms: number) => void;
  /** What the server's poll phase does between two sockets: their microtasks run. */
  nextSocket: () => Promise<void>;
} {
  let t = 1000;
  const turnstile = new Turnstile(turnMs, () => t, arrivingTurnMs);
  const ran: string[] = [];
  const request = (name: string, ms: number): void => turnstile.pass(() => queueMicrotask(() => {
    ran.push(name);
    t += ms;
  }));
  return { turnstile, ran, request, advance: (ms) => (t += ms), nextSocket: () => new Promise<void>((resolve) => queueMicrotask(resolve)) };
}

test('turnstile: on an idle server requests start at once while the turn lasts', async () => {
  const { turnstile, ran, request, nextSocket } = harness(2);
  for (const name of ['a', 'b', 'c', 'd']) {
    request(name, 0.3);
    await nextSocket();
  }
  assert.deepEqual(ran, ['a', 'b', 'c', 'd']);
  assert.equal(turnstile.queued, 0);
});

test('turnstile: a spent turn makes later requests wait for the loop to come round; they start oldest first, in batches sized by what a request cost', async () => {
  const { turnstile, ran, request, nextSocket } = harness(2);
  // One poll's worth of sockets: a and b fit the turn (2 ms), the rest wait.
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
    request(name, 1);
    await nextSocket();
  }
  assert.deepEqual(ran, ['a', 'b']);
  assert.equal(turnstile.queued, 6);

  await loopComesRound();
  assert.deepEqual(ran.slice(2), ['c'], 'nothing measured yet: one request');
  // A request read in the next poll queues behind those already waiting.
  request('late', 1);
  await nextSocket();
  assert.equal(turnstile.queued, 6);

  await loopComesRound();
  assert.deepEqual(ran.slice(3), ['d', 'e'], 'c cost 1 ms: two fit a 2 ms turn');
  await loopComesRound();
  assert.deepEqual(ran.slice(5), ['f', 'g']);
  await loopComesRound();
  assert.deepEqual(ran.slice(7), ['h', 'late']);
  assert.equal(turnstile.queued, 0);
});

test('turnstile: cheap requests are released many to a turn, a request longer than a turn alone', async () => {
  const { ran, request, nextSocket } = harness(2);
  request('slow', 10);
  await nextSocket();
  for (let i = 0; i < 30; i++) request(`cheap${i}`, 0.125);
  await loopComesRound();
  assert.deepEqual(ran, ['slow', 'cheap0']);
  await loopComesRound();
  assert.equal(ran.length, 2 + 16, 'cheap0 cost 0.125 ms: 16 fit a 2 ms turn');
  await loopComesRound();
  assert.equal(ran.length, 31);
});

test('turnstile: once the loop has come round with nobody waiting, a request starts at once again', async () => {
  const { ran, request, nextSocket } = harness(2);
  request('a', 5);
  await nextSocket();
  await loopComesRound();
  request('b', 0);
  await nextSocket();
  assert.deepEqual(ran, ['a', 'b'], 'no wait: the loop has polled since the last turn began');
});

test('turnstile: while connections are being accepted, waiting requests are held for up to a turn, so the loop comes round to accept the next one first', async () => {
  const { turnstile, ran, request, advance, nextSocket } = harness(2);
  request('a', 3);
  await nextSocket();
  request('b', 1);
  request('c', 1);
  await nextSocket();
  assert.deepEqual(ran, ['a'], 'the turn is spent: b and c wait');

  // Each loop iteration accepts one connection; for a turn's time nothing is released.
  turnstile.connectionAccepted();
  await loopComesRound();
  turnstile.connectionAccepted();
  advance(1);
  await loopComesRound();
  assert.deepEqual(ran, ['a'], 'held while connections arrive, for less than a turn');
  assert.equal(turnstile.queued, 2);

  // A turn's time after the hold began, a turn is released even though connections still arrive.
  turnstile.connectionAccepted();
  advance(1);
  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b']);

  // No connection accepted since the last check: released at once.
  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(turnstile.queued, 0);
});

test('turnstile: turns are shorter while connections arrive, and for ARRIVING_MS after the last one; the hold lasts a shorter turn', async () => {
  const { turnstile, ran, request, advance, nextSocket } = harness(3, 2);
  // No connection accepted yet: a 3 ms turn holds three 1 ms requests.
  for (const name of ['a', 'b', 'c', 'd']) {
    request(name, 1);
    await nextSocket();
  }
  assert.deepEqual(ran, ['a', 'b', 'c']);

  // Connections arriving: held for 2 ms (not 3), then a 2 ms turn.
  turnstile.connectionAccepted();
  await loopComesRound();
  turnstile.connectionAccepted();
  advance(2);
  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b', 'c', 'd'], 'released after a hold of the shorter turn');
  for (const name of ['e', 'f']) {
    request(name, 1);
    await nextSocket();
  }
  assert.deepEqual(ran.slice(4), ['e'], 'a 2 ms turn: d and e');

  // ARRIVING_MS after the last connection, turns are 3 ms again.
  advance(ARRIVING_MS);
  await loopComesRound();
  for (const name of ['g', 'h', 'i']) {
    request(name, 1);
    await nextSocket();
  }
  assert.deepEqual(ran.slice(5), ['f', 'g', 'h']);
  assert.equal(turnstile.queued, 1);
});

test('turnstile: a check with no connection accepted since the last releases at once, however many came before', async () => {
  const { turnstile, ran, request, nextSocket } = harness(2);
  request('a', 3);
  await nextSocket();
  request('b', 1);
  await nextSocket();
  turnstile.connectionAccepted();
  await loopComesRound();
  assert.deepEqual(ran, ['a']);
  await loopComesRound();
  assert.deepEqual(ran, ['a', 'b']);
});

test('turnstile: on a real server, a burst of kept-alive connections and of one-request connections (no keep-alive) is answered whole, each connection in its order', { timeout: 30_000 }, async () => {
  // Every connection the server accepts reaches its turnstile (the hold's signal).
  // Kept to be called with its `this` and put back afterwards.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const accepted = Turnstile.prototype.connectionAccepted;
  let connections = 0;
  Turnstile.prototype.connectionAccepted = function (this: Turnstile): void {
    connections++;
    accepted.call(this);
  };
  const app = Fastify();
  installTurnstile(app, 2);
  // ~1 ms of work a request, as a search: turns are spent and requests wait.
  app.get('/work/:n', (request, reply) => {
    const until = performance.now() + 1;
    while (performance.now() < until);
    void reply.send({ n: (request.params as { n: string }).n });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const get = (path: string, keepAlive: boolean): Promise<{ status: number; body: string }> => new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: keepAlive ? agent : false, headers: keepAlive ? {} : { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
  try {
    // 32 connections opened at once, three requests each in turn; 32 more with one request each.
    const kept = Array.from({ length: 32 }, async (_, c) => {
      const bodies: string[] = [];
      for (let k = 0; k < 3; k++) bodies.push((await get(`/work/${c}-${k}`, true)).body);
      return bodies;
    });
    const single = Array.from({ length: 32 }, (_, c) => get(`/work/single-${c}`, false));
    const keptBodies = await Promise.all(kept);
    const n = (body: string): unknown => (JSON.parse(body) as { n: unknown }).n;
    keptBodies.forEach((bodies, c) => assert.deepEqual(bodies.map(n), [`${c}-0`, `${c}-1`, `${c}-2`]));
    const singles = await Promise.all(single);
    singles.forEach((r, c) => assert.deepEqual([r.status, n(r.body)], [200, `single-${c}`]));
    assert.equal(connections, 64, '32 kept-alive connections and 32 one-request ones');
  } finally {
    Turnstile.prototype.connectionAccepted = accepted;
    agent.destroy();
    await app.close();
  }
});

test('turnstile: a released request that throws does not keep the rest of its batch waiting; the error still surfaces', () => {
  // In a process of its own: the error is thrown from the loop's check phase, uncaught.
  const script = `
    import { Turnstile } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/http/turnstile.js')).href)};
    let t = 1000;
    const turnstile = new Turnstile(2, () => t);
    const ran = [];
    const work = (name, ms) => () => { ran.push(name); t += ms; };
    process.on('exit', () => console.log(ran.join(',')));
    turnstile.pass(work('long', 5));
    turnstile.pass(work('a', 0.5));
    turnstile.pass(() => { throw new Error('broken hook chain'); });
    turnstile.pass(work('b', 0.5));
    turnstile.pass(work('c', 0.5));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
  // 'a' alone first (nothing measured yet); it cost 0.5 ms of a 2 ms turn, so the next batch
  // may hold four and takes all three left: the thrower, b and c.
  assert.equal(result.stdout.trim(), 'long,a,b,c');
  assert.match(result.stderr, /broken hook chain/);
  assert.notEqual(result.status, 0);
});
