import type { FastifyInstance } from 'fastify';

/**
 * Lets requests to a synchronous store (SQLite answers inside the call) through in turns of a
 * few milliseconds, yielding to the event loop between turns, first come first served.
 *
 * Without it, every request whose bytes arrived in one poll of the event loop runs back to
 * back before the loop polls again: under load a poll holds ~64 searches (~100 ms), while
 * libuv hands the server about one new connection per poll, so the 64th connection of a burst
 * waited seconds for its first answer, and a request's wait depended on where its socket fell
 * in the poll. With turns, the loop polls every few milliseconds: connections are accepted as
 * they come and every request waits behind those that arrived before it, and no others.
 *
 * A request is not held while it runs: the turnstile only decides when its handler starts. A
 * handler's synchronous part (the store's work) runs inside `pass`, so turns are measured by
 * the clock, not by counting requests.
 */
export class Turnstile {
  private turnEnds = Number.NEGATIVE_INFINITY;
  /** True once the loop has come round (an immediate ran) since the current turn began. */
  private yielded = true;
  private immediatePending = false;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly turnMs: number,
    private readonly now: () => number = () => performance.now(),
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

  /** Requests waiting for a turn (for tests and diagnostics). */
  get queued(): number {
    return this.waiting.length;
  }

  private startTurn(now: number): void {
    this.turnEnds = now + this.turnMs;
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
    if (this.waiting.length === 0) return;
    this.startTurn(this.now());
    // At least one request per turn, however long it takes.
    do {
      const go = this.waiting.shift();
      go?.();
    } while (this.waiting.length > 0 && this.now() < this.turnEnds);
  };
}

/**
 * Installs a turnstile in front of every handler of `app`: after authentication, so a refused
 * request is not held up by the ones doing work.
 */
export function installTurnstile(app: FastifyInstance, turnMs: number): Turnstile {
  const turnstile = new Turnstile(turnMs);
  app.addHook('preHandler', (_request, _reply, done) => {
    turnstile.pass(done);
  });
  return turnstile;
}
