import type { FastifyInstance } from 'fastify';

/** How long after a connection was accepted more are taken to be arriving (a client opening its pool). */
export const ARRIVING_MS = 100;

/**
 * Lets requests through in turns of a few milliseconds, yielding to the event loop between
 * turns, first come first served. A request's synchronous work (SQLite answers inside the call;
 * with PostgreSQL the search, before the rows are awaited, and the JSON after) runs on the loop.
 *
 * Without it, every request whose bytes arrived in one poll of the event loop runs back to
 * back before the loop polls again, and libuv accepts one new connection per poll: under load
 * a poll held ~40 cold searches (~80 ms, strace), so the 64th connection of a burst waited
 * seconds for its first answer, and a request's wait depended on where its socket fell in the
 * poll. With turns, the loop polls every few milliseconds: connections are accepted as they
 * come and every request waits behind those that arrived before it, and no others.
 *
 * A request is not held while it runs: the turnstile only decides when its handler starts.
 * While nobody waits, a request starts at once if the current turn has time left (the poll
 * phase runs each socket's microtasks before the next, so the clock sees each request's work).
 * Those that wait are released after the poll, a batch per loop iteration: a handler's work
 * runs in microtasks after the release (it awaits the catalogue state first), so a batch is
 * sized by the cost per request that the previous batches measured, from one release to the
 * next, rather than by watching the clock while releasing.
 *
 * While connections are arriving, releases wait. libuv accepts one connection per loop
 * iteration (since libuv#3696; Node 20 has libuv 1.46), so a burst of 64 connections took 64
 * iterations, each a whole turn of others' requests, before the last connection's first
 * request was even read: at 1,000,000 foods the slowest answers of a cold search burst. When a
 * connection was accepted since the last check, the loop comes round again at once, without
 * releasing, for up to a turn's time; then a turn is released as usual, and so on while
 * connections keep coming. A request waits at most a turn longer for it, and only while new
 * connections are being accepted; clients without keep-alive, whose every request comes on a
 * new connection, end the hold as soon as the backlog of connections is empty. On servers
 * started afresh, a cold search burst's slowest answer at 64 connections went from 260-280 ms
 * to 111-143 ms, answers a second within the machine's spread, also without keep-alive
 * (bench/README.md).
 *
 * Turns are shorter while connections arrive than once they are open: each turn ends in a
 * loop iteration of its own, so longer turns answer more a second, but the ramp of a burst is
 * a turn per hold. With 6 ms turns, 4 ms while connections arrive, a 1,000,000-food server
 * answered 2-5 % more cold searches and type-ahead after words a second at 64 connections than
 * with 4 ms throughout (three alternated pairs), a burst's first answers as with 4 ms; 6 ms
 * throughout had made their maximum ~12 ms slower at the median (bench/connections.ts, five pairs).
 */
export class Turnstile {
  private turnEnds = Number.NEGATIVE_INFINITY;
  /** A connection was accepted since the last check. */
  private arriving = false;
  /** When the last connection was accepted. */
  private acceptedAt = Number.NEGATIVE_INFINITY;
  /** When the current hold for arriving connections began; undefined when none is on. */
  private holdSince: number | undefined;
  /** True once the loop has come round (an immediate ran) since the current turn began. */
  private yielded = true;
  private immediatePending = false;
  private readonly waiting: (() => void)[] = [];
  /** Milliseconds a released request has cost, smoothed; 0 until a batch has been measured. */
  private costMs = 0;
  private batch: { readonly released: number; readonly size: number } | undefined;

  /**
   * @param turnMs a turn once the connections are open.
   * @param arrivingTurnMs a turn, and the longest hold, while connections are arriving (one
   *   accepted within the last `ARRIVING_MS`): shorter, since the next connection is accepted
   *   only between turns.
   */
  constructor(
    private readonly turnMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly arrivingTurnMs: number = turnMs,
  ) {}

  /** Runs `go` now, or later in arrival order when the current turn is spent. */
  pass(go: () => void): void {
    if (this.waiting.length === 0) {
      const now = this.now();
      if (now < this.turnEnds) return go();
      if (this.yielded) {
        this.startTurn(now);
        return go();
      }
    }
    this.waiting.push(go);
    this.comeRound();
  }

  /** A connection was accepted: the next check lets the loop accept another before releasing. */
  connectionAccepted(): void {
    this.arriving = true;
    this.acceptedAt = this.now();
  }

  /** Requests waiting for a turn (the tests read it). */
  get queued(): number {
    return this.waiting.length;
  }

  private turnLength(now: number): number {
    return now - this.acceptedAt < ARRIVING_MS ? this.arrivingTurnMs : this.turnMs;
  }

  private startTurn(now: number): void {
    this.turnEnds = now + this.turnLength(now);
    this.yielded = false;
    this.comeRound();
  }

  private comeRound(): void {
    if (this.immediatePending) return;
    this.immediatePending = true;
    setImmediate(this.onCheck);
  }

  /** Runs after the loop's poll phase: a new turn for those waiting, oldest first. */
  private readonly onCheck = (): void => {
    this.immediatePending = false;
    this.yielded = true;
    const now = this.now();
    if (this.batch !== undefined) {
      // The last batch's requests have done their work since it was released (microtasks run
      // before this immediate), and the loop has polled: that is the cost of a request.
      const measured = (now - this.batch.released) / this.batch.size;
      this.costMs = this.costMs === 0 ? measured : (this.costMs + measured) / 2;
      this.batch = undefined;
    }
    const arriving = this.arriving;
    this.arriving = false;
    if (this.waiting.length === 0) {
      this.holdSince = undefined;
      return;
    }
    if (arriving) {
      this.holdSince ??= now;
      if (now - this.holdSince < this.arrivingTurnMs) return this.comeRound();
    }
    this.holdSince = undefined;
    this.startTurn(now);
    // At least one request per turn, however long it takes.
    const size = this.costMs > 0 ? Math.max(1, Math.floor(this.turnLength(now) / this.costMs)) : 1;
    const released = this.waiting.splice(0, size);
    this.batch = { released: now, size: released.length };
    // Every released request starts even if one throws (none should: each is Fastify's
    // `done`); the first error is then thrown as it would have been.
    let failure: { error: unknown } | undefined;
    for (const go of released) {
      try {
        go();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  };
}

/**
 * Installs a turnstile in front of every handler of `app`: after authentication, so a refused
 * request is not held up by the ones doing work.
 */
export function installTurnstile(app: FastifyInstance, turnMs: number, arrivingTurnMs = turnMs): void {
  const turnstile = new Turnstile(turnMs, undefined, arrivingTurnMs);
  app.server.on('connection', () => turnstile.connectionAccepted());
  app.addHook('preHandler', (_request, _reply, done) => {
    turnstile.pass(done);
  });
}
