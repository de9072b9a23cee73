import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { fixtureDatabase } from '../helpers/fixture-server.js';
import { basic, spawnServe, TEST_TOKEN, untilWorkersListen, type ServeProcess } from '../helpers/server.js';
import { parseResponses } from '../helpers/raw-http.js';

/**
 * Contract C1 (SIGTERM: stop accepting, finish in-flight requests, exit 0) as container runtimes
 * and systemd send it: to the whole process group of `foodlookup serve`, primary and workers at
 * once, through the real CLI, with many requests in flight.
 */
const fixture = fixtureDatabase();

const PATH = '/v1/foods?query=cheese&limit=100';
const AUTH = basic(TEST_TOKEN);

/** `serve` as the leader of its own process group, and a way to signal the whole group. */
async function serveGroup(workers: number): Promise<{ server: ServeProcess; signalGroup: () => void; exited: Promise<number | null> }> {
  const server = await spawnServe(fixture.db, { LOG_LEVEL: 'warn' }, ['--workers', String(workers)], { detached: true });
  await untilWorkersListen(server, workers);
  return { server, signalGroup: () => process.kill(-server.pid, 'SIGTERM'), exited: server.exited };
}

/** True once no process of the group is left. */
async function groupGone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    try {
      process.kill(-pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

interface Outcome {
  readonly sentBeforeSignal: boolean;
  readonly answeredBeforeSignal: boolean;
  readonly result: string;
}

for (const workers of [1, 2]) {
  describe(`SIGTERM to the process group of serve --workers ${workers}`, () => {
    test('every request sent before the signal is answered in full; later ones are answered or refused, never cut off', async () => {
      const group = await serveGroup(workers);
      const agent = new Agent({ keepAlive: true, maxSockets: 64 });
      let signalledAt = Number.POSITIVE_INFINITY;
      let answered = 0;
      const one = (): Promise<Outcome> => new Promise((resolve) => {
        let sentAt = Number.POSITIVE_INFINITY;
        const req = request(`${group.server.url}${PATH}`, { agent, headers: { authorization: AUTH } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            const answeredBeforeSignal = performance.now() < signalledAt;
            if (++answered === 100) {
              signalledAt = performance.now();
              group.signalGroup();
            }
            let result = `status ${res.statusCode}`;
            try {
              JSON.parse(body);
            } catch {
              result = `cut-off body (status ${res.statusCode})`;
            }
            resolve({ sentBeforeSignal: sentAt < signalledAt, answeredBeforeSignal, result });
          });
          res.on('error', (error: NodeJS.ErrnoException) => resolve({ sentBeforeSignal: sentAt < signalledAt, answeredBeforeSignal: false, result: `cut off: ${error.code}` }));
        });
        req.on('finish', () => (sentAt = performance.now()));
        req.on('error', (error: NodeJS.ErrnoException) => resolve({ sentBeforeSignal: sentAt < signalledAt, answeredBeforeSignal: false, result: `error ${error.code ?? error.message}` }));
        req.end();
      });
      const outcomes = await Promise.all(Array.from({ length: 1000 }, one));
      agent.destroy();
      assert.equal(await group.exited, 0, group.server.stderr());
      assert.ok(await groupGone(group.server.pid), 'every process of the group has exited');

      const inFlight = outcomes.filter((o) => o.sentBeforeSignal && !o.answeredBeforeSignal);
      assert.ok(inFlight.length > 0, 'some requests were in flight when the signal came');
      const lost = inFlight.filter((o) => o.result !== 'status 200');
      assert.deepEqual(lost, [], `${lost.length} of ${inFlight.length} requests in flight at the signal were lost`);
      // Sent after the signal: refused (the port is closed) or answered, never answered in part.
      for (const o of outcomes) assert.doesNotMatch(o.result, /cut/);
      assert.doesNotMatch(group.server.stderr(), /starting another/);
    });

    test('a request half sent when the signal comes is answered in full once its sender completes it', async () => {
      const group = await serveGroup(workers);
      const { port } = new URL(group.server.url);
      const CONNECTIONS = 8;
      const head = `GET ${PATH} HTTP/1.1\r\nHost: test\r\n`;
      const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
        const socket = connect(Number(port), '127.0.0.1');
        const data: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => data.push(chunk));
        socket.on('error', () => undefined);
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write(head);
        return { socket, data, closed };
      }));
      group.signalGroup();
      // The server is idle while it waits for the rest: it must neither die nor drop the connections.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const s of sockets) s.socket.write(`Authorization: ${AUTH}\r\n\r\n`);
      await Promise.all(sockets.map((s) => s.closed));
      for (const [i, s] of sockets.entries()) {
        const { responses, rest } = parseResponses(Buffer.concat(s.data), ['GET']);
        assert.equal(responses.length, 1, `connection ${i}: no answer (${JSON.stringify(rest.slice(0, 200))})`);
        assert.equal(responses[0]!.status, 200, responses[0]!.body);
        assert.equal(responses[0]!.headers.get('connection'), 'close');
        assert.doesNotThrow(() => JSON.parse(responses[0]!.body));
      }
      assert.equal(await group.exited, 0, group.server.stderr());
      assert.ok(await groupGone(group.server.pid), 'every process of the group has exited');
    });

    test('pipelined requests read before the signal are all answered', async () => {
      const group = await serveGroup(workers);
      const CONNECTIONS = 24;
      const PIPELINED = 10;
      const wire = `GET ${PATH} HTTP/1.1\r\nHost: test\r\nAuthorization: ${AUTH}\r\n\r\n`;
      const { port } = new URL(group.server.url);
      const sockets: { socket: Socket; data: Buffer[]; firstAnswer: Promise<void>; closed: Promise<void> }[] = [];
      for (let i = 0; i < CONNECTIONS; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        const data: Buffer[] = [];
        let firstAnswer = (): void => undefined;
        const entry = {
          socket,
          data,
          firstAnswer: new Promise<void>((resolve) => (firstAnswer = resolve)),
          closed: new Promise<void>((resolve) => socket.once('close', () => resolve())),
        };
        socket.on('data', (chunk: Buffer) => {
          data.push(chunk);
          if (parseResponses(Buffer.concat(data), []).responses.length > 0) firstAnswer();
        });
        socket.on('error', () => undefined);
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        // One write: the server reads all of a connection's requests at once.
        socket.write(wire.repeat(PIPELINED));
        sockets.push(entry);
      }
      // Every connection has had an answer, so every request on it has been read by the server.
      await Promise.all(sockets.map((s) => s.firstAnswer));
      group.signalGroup();
      const done = await Promise.race([
        Promise.all(sockets.map((s) => s.closed)).then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000).unref()),
      ]);
      assert.ok(done, 'the server closed every connection once it had answered');
      for (const [i, s] of sockets.entries()) {
        const { responses, rest } = parseResponses(Buffer.concat(s.data), Array(PIPELINED).fill('GET'));
        assert.equal(responses.length, PIPELINED, `connection ${i}: ${responses.length} of ${PIPELINED} answers, then ${JSON.stringify(rest.slice(0, 200))}`);
        for (const response of responses) {
          assert.equal(response.status, 200);
          assert.doesNotThrow(() => JSON.parse(response.body));
        }
      }
      assert.equal(await group.exited, 0, group.server.stderr());
      assert.ok(await groupGone(group.server.pid), 'every process of the group has exited');
    });
  });
}
