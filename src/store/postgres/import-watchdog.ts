import pg from 'pg';
import { envInteger } from '../../config.js';
import { endClient } from './connection.js';

/**
 * An import's connection runs its statements without a time bound (the COPY of a million foods,
 * the index builds), so a server that stops answering rather than going away — a frozen host, a
 * network that drops packets — would hold the import for ever: TCP keepalive does not tell (a
 * frozen host's kernel still answers its probes), and a long statement sends nothing back for
 * minutes anyway. The watchdog asks the server `SELECT 1` on a connection of its own every few
 * seconds; when no answer has come for `stallMs`, it calls `onStall`, which ends the import.
 */
export class ImportWatchdog {
  private client: pg.Client | undefined;
  /** How long the server has been silent, counted in ticks: see tick(). */
  private silentMs = 0;
  private lastTick = Date.now();
  private asking = false;
  private stopped = false;
  private readonly every: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly stallMs: number,
    private readonly onStall: (why: string) => void,
  ) {
    this.every = Math.max(100, Math.min(PING_MS, Math.floor(stallMs / 4)));
    this.timer = setInterval(() => this.tick(), this.every);
    this.timer.unref();
  }

  private tick(): void {
    if (this.stopped) return;
    // Silence is counted only while this thread could have heard an answer: the import blocks
    // it for seconds at a time (the search data of a million foods is built in one go), and an
    // answer that came meanwhile is read after this tick. A tick counts for two at most.
    const now = Date.now();
    this.silentMs += Math.min(now - this.lastTick, 2 * this.every);
    this.lastTick = now;
    if (this.silentMs > this.stallMs) {
      this.stop();
      this.onStall(`it answered nothing for ${Math.round(this.stallMs / 1000)} s`);
      return;
    }
    if (!this.asking) void this.ask();
  }

  private async ask(): Promise<void> {
    this.asking = true;
    try {
      if (this.client === undefined) {
        const client = new pg.Client({ ...this.config, application_name: 'foodlookup import watchdog', connectionTimeoutMillis: this.stallMs, query_timeout: this.stallMs });
        client.on('error', () => {
          if (this.client === client) this.client = undefined;
        });
        this.client = client;
        await client.connect();
      }
      await this.client.query('SELECT 1');
      this.silentMs = 0;
    } catch {
      // No answer this time: asked again at the next tick, on a new connection.
      const client = this.client;
      this.client = undefined;
      if (client !== undefined) void endClient(client);
    } finally {
      this.asking = false;
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) void endClient(client);
  }
}

/** How often the watchdog asks, at most. */
const PING_MS = 5000;

/**
 * How long an import waits for a server that answers nothing before it fails (default 60 s):
 * longer than any pause of a busy server, and FOODLOOKUP_IMPORT_STALL_SECONDS changes it.
 */
export function importStallMs(): number {
  return envInteger('FOODLOOKUP_IMPORT_STALL_SECONDS', 1, 60) * 1000;
}
