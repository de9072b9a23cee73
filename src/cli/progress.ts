import { envInteger } from '../config.js';

/**
 * Progress of a long job: on a terminal, records/s and ETA redrawn at most once a second; when
 * the output is not a terminal (logs, CI), a line every 5 s (FOODLOOKUP_PROGRESS_MS).
 */
export class Progress {
  private readonly started = performance.now();
  private last = 0;
  private count = 0;
  private share = 0;
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream) {}

  records(count: number): void {
    this.count = count;
    this.draw();
  }

  fraction(value: number): void {
    this.share = value;
  }

  /** A line that must not be overwritten (a skipped record). */
  message(text: string): void {
    this.clear();
    this.out.write(`${text}\n`);
  }

  /** Replaces the counter with a phase that has no count of its own. */
  status(text: string): void {
    if (!this.out.isTTY) {
      // Only for imports long enough to have shown progress: a quick one ends with its summary alone.
      if (performance.now() - this.started >= this.lineEveryMs) this.out.write(`progress: ${this.count.toLocaleString('en')} records; ${text}\n`);
      return;
    }
    this.clear();
    this.out.write(`${this.count.toLocaleString('en')} records; ${text}`);
    this.drawn = true;
  }

  private readonly lineEveryMs = envInteger('FOODLOOKUP_PROGRESS_MS', 0, 5000);

  private draw(): void {
    const now = performance.now();
    if (this.out.isTTY ? now - this.last < 1000 : now - Math.max(this.last, this.started) < this.lineEveryMs) return;
    this.last = now;
    const seconds = (now - this.started) / 1000;
    const rate = Math.round(this.count / Math.max(seconds, 0.001));
    const eta = this.share > 0.01 ? ` ETA ${Math.round((seconds / this.share) * (1 - this.share))} s` : '';
    const text = `${this.count.toLocaleString('en')} records, ${rate.toLocaleString('en')}/s${eta}`;
    if (!this.out.isTTY) {
      this.out.write(`progress: ${text}${this.share > 0 ? `, ${Math.round(this.share * 100)} % read` : ''}\n`);
      return;
    }
    this.out.write(`\r${text}   `);
    this.drawn = true;
  }

  private clear(): void {
    if (this.drawn) this.out.write('\r\x1b[K');
    this.drawn = false;
  }

  done(): void {
    this.clear();
  }
}
