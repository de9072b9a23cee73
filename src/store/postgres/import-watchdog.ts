import { Worker } from 'node:worker_threads';
import { envInteger } from '../../config.js';

/**
 * An import's connection runs its statements without a time bound (the COPY of a million foods,
 * the index builds), so a server that stops answering rather than going away — a frozen host, a
 * network that drops packets — would hold the import for ever: TCP keepalive does not tell (a
 * frozen host's kernel still answers its probes), and a long statement sends nothing back for
 * minutes anyway. The watchdog asks the server `SELECT 1` on a connection of its own, from a
 * thread of its own (import-watchdog-worker.ts), every few seconds; when no answer has come for
 * `stallMs`, it calls `onStall`, which ends the import. An error the server sends (it refuses the
 * connection, say) is an answer too.
 */
export class ImportWatchdog {
  private stopped = false;
  private readonly worker: Worker;

  constructor(url: string, stallMs: number, onStall: (why: string) => void) {
    const job: WatchdogJob = { url, stallMs, every: Math.max(100, Math.min(PING_MS, Math.floor(stallMs / 4))) };
    this.worker = new Worker(new URL('./import-watchdog-worker.js', import.meta.url), { workerData: job });
    this.worker.on('message', (why: string) => {
      if (this.stopped) return;
      this.stop();
      onStall(why);
    });
    // A watchdog that could not run leaves the import unwatched, as before there was one: never
    // a reason to fail an import that is going well.
    this.worker.on('error', () => undefined);
    // It never keeps the process: an import that ended has nothing left to watch.
    this.worker.unref();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.postMessage('stop');
  }
}

/** What the watchdog's thread is given. */
export interface WatchdogJob {
  readonly url: string;
  readonly stallMs: number;
  /** How often it asks. */
  readonly every: number;
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
