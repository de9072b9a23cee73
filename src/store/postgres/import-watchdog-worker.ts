/**
 * The import watchdog's thread (import-watchdog.ts): asks the server `SELECT 1` on a connection
 * of its own every `every` ms and posts why once no answer has come for `stallMs`. It runs on a
 * thread of its own because the import's thread answers its sockets only between batches: on a
 * slow or loaded machine a batch holds it for most of a second, each of a connection's round
 * trips waited for one, and a server that answered at once looked silent for seconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { endClient } from './connection.js';
import type { WatchdogJob } from './import-watchdog.js';

const { url, stallMs, every } = workerData as WatchdogJob;
let client: pg.Client | undefined;
/** How long the server has been silent, counted in ticks: see tick(). */
let silentMs = 0;
let lastTick = Date.now();
let asking = false;

function tick(): void {
  // This thread does nothing else, so its ticks come on time unless the whole process is held
  // (a paused machine, a starved one): a tick counts for two at most, and a pause of our own is
  // not taken for the server's silence.
  const now = Date.now();
  silentMs += Math.min(now - lastTick, 2 * every);
  lastTick = now;
  if (silentMs > stallMs) {
    clearInterval(timer);
    parentPort!.postMessage(`it answered nothing for ${Math.round(stallMs / 1000)} s`);
    return;
  }
  if (!asking) void ask();
}

async function ask(): Promise<void> {
  asking = true;
  try {
    if (client === undefined) {
      const fresh = new pg.Client({ connectionString: url, application_name: 'foodlookup import watchdog', connectionTimeoutMillis: stallMs, query_timeout: stallMs });
      fresh.on('error', () => {
        if (client === fresh) client = undefined;
      });
      client = fresh;
      await fresh.connect();
    }
    await client.query('SELECT 1');
    silentMs = 0;
  } catch (err) {
    // A refusal (too many clients: other imports, replicas, tests sharing the server) is the
    // server answering, not silence: only a server that says nothing stalls the import.
    if (err instanceof pg.DatabaseError) silentMs = 0;
    // Asked again at the next tick, on a new connection.
    const lost = client;
    client = undefined;
    if (lost !== undefined) void endClient(lost);
  } finally {
    asking = false;
  }
}

const timer = setInterval(tick, every);
parentPort!.once('message', () => {
  // Stopped: the import ended one way or the other.
  clearInterval(timer);
  const last = client;
  client = undefined;
  void (last === undefined ? Promise.resolve() : endClient(last)).then(() => parentPort!.close());
});
