/** Progress of a long job on a terminal: records/s and ETA, redrawn at most once a second. */
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
    if (!this.out.isTTY) return;
    this.clear();
    this.out.write(`${this.count.toLocaleString('en')} records; ${text}`);
    this.drawn = true;
  }

  private draw(): void {
    if (!this.out.isTTY) return;
    const now = performance.now();
    if (now - this.last < 1000) return;
    this.last = now;
    const seconds = (now - this.started) / 1000;
    const rate = Math.round(this.count / Math.max(seconds, 0.001));
    const eta = this.share > 0.01 ? ` ETA ${Math.round((seconds / this.share) * (1 - this.share))} s` : '';
    this.out.write(`\r${this.count.toLocaleString('en')} records, ${rate.toLocaleString('en')}/s${eta}   `);
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
