/**
 * Loaded into the serving processes by bench/run.ts (`NODE_OPTIONS=--import …memory-probe.js`,
 * with BENCH_MEMORY_DIR set): a worker samples its own memory every 100 ms and keeps the sample
 * taken when its private memory (RssAnon) was highest. On SIGUSR2 it writes that sample to
 * `$BENCH_MEMORY_DIR/<pid>.json` and starts over, so the bench gets each scenario's peak with
 * what it was made of: V8's heap by space, the ArrayBuffers outside it, and the rest (SQLite's
 * page cache, Node's and the allocator's own, fragmentation).
 */
import cluster from 'node:cluster';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';

/** One sample, in MiB. */
export interface MemorySample {
  /** Private memory (anonymous pages resident): what the bench's memory target is about. */
  readonly rssAnon: number;
  /** V8's heap as committed, and the part of it live or not yet collected. */
  readonly heapTotal: number;
  readonly heapUsed: number;
  /** Committed size of each heap space (new_space is the young generation's semi-spaces). */
  readonly spaces: Readonly<Record<string, number>>;
  /** Memory of ArrayBuffers and Buffers (outside the V8 heap, malloc'd). */
  readonly arrayBuffers: number;
  /** Other memory V8 was told of (external minus ArrayBuffers). */
  readonly otherExternal: number;
}

const MiB = 2 ** 20;

function rssAnonMiB(): number {
  const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

function sample(): MemorySample {
  const usage = process.memoryUsage();
  const spaces: Record<string, number> = {};
  for (const space of getHeapSpaceStatistics()) spaces[space.space_name] = space.space_size / MiB;
  return {
    rssAnon: rssAnonMiB(),
    heapTotal: usage.heapTotal / MiB,
    heapUsed: usage.heapUsed / MiB,
    spaces,
    arrayBuffers: usage.arrayBuffers / MiB,
    otherExternal: (usage.external - usage.arrayBuffers) / MiB,
  };
}

const dir = process.env['BENCH_MEMORY_DIR'];
if (dir !== undefined && !cluster.isPrimary) {
  let peak: MemorySample | undefined;
  const take = (): void => {
    const now = sample();
    if (peak === undefined || now.rssAnon >= peak.rssAnon) peak = now;
  };
  setInterval(take, 100).unref();
  process.on('SIGUSR2', () => {
    take();
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(peak));
    peak = undefined;
  });
}
