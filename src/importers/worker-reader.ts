import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { envInteger } from '../config.js';
import type { ImportItem } from './check-record.js';
import { loadLineRecords } from './format-modules.js';
import type { ReaderOptions } from './formats.js';
import { decodeItems, fromWireError, type FromWorker, type ToWorker, type WorkerJob } from './import-wire.js';
import { settlesWithin } from '../deadline.js';

/**
 * Records per batch the worker sends. FOODLOOKUP_IMPORT_BATCH sets it (tests use a few records
 * to cross many batches with a small file); a batch of a thousand foods is about 1.5 MB.
 */
function importBatchSize(): number {
  return envInteger('FOODLOOKUP_IMPORT_BATCH', 1, 1000);
}

/**
 * Batches the worker may have sent and the import not yet put: enough that the importing thread
 * never waits for a batch while the worker keeps up, few enough that memory stays flat however
 * large the input (the worker waits instead).
 */
const AHEAD = 4;

/**
 * The young generation of each import worker's heap, in MiB. V8's default here is several
 * times larger, and with two workers it showed: a 1 GB catalogue's import held ~130 MiB more
 * through its records than with one worker (RSS 438 against 314 MiB at mid-run), ~80 MiB of it
 * the workers' young generations. At 8 MiB: 330 MiB at mid-run, peak 505 -> 480 MiB, and the
 * same time (bench/import-memory.ts; PostgreSQL at 1,000,000 foods: 82.5 -> 81.8 s mean of
 * three, peak 1,574 -> 1,452 MiB).
 */
const WORKER_YOUNG_MB = 8;

/** How long a worker told to stop may take to close its reader before it is terminated. */
const STOP_GRACE_MS = 2000;

type WorkerEvent = FromWorker | { readonly type: 'crashed'; readonly error: Error } | { readonly type: 'exited'; readonly code: number };

/** Events in arrival order, awaited one at a time. */
class Inbox<T> {
  private readonly queue: T[] = [];
  private waiting: ((event: T) => void) | undefined;

  push(event: T): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(event);
    else this.queue.push(event);
  }

  next(): Promise<T> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift()!);
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

/** Resolves when the worker has exited, terminating it when it does not within the grace time. */
async function ended(worker: Worker, exited: Promise<void>): Promise<void> {
  if (!(await settlesWithin(exited, STOP_GRACE_MS))) await worker.terminate();
}

/**
 * Workers that share a line-by-line format's files (formats.ts LineRecords). The import
 * worker was the bound of a large import (JSON.parse and the checks, ~85 % of a core, while
 * the writer's thread took less than half of one); FOODLOOKUP_IMPORT_READERS sets it (1: one
 * worker reads everything, as for every other format).
 */
function lineReaders(): number {
  return Math.min(8, envInteger('FOODLOOKUP_IMPORT_READERS', 1, Math.min(2, availableParallelism())));
}

interface Reading {
  readonly worker: Worker;
  readonly inbox: Inbox<WorkerEvent>;
  readonly exited: Promise<void>;
  done: boolean;
}

function startWorker(job: WorkerJob): Reading {
  const worker = new Worker(new URL('./import-worker.js', import.meta.url), { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
  const inbox = new Inbox<WorkerEvent>();
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      inbox.push({ type: 'exited', code });
      resolve();
    });
  });
  worker.on('message', (message: FromWorker) => inbox.push(message));
  worker.on('error', (error) => inbox.push({ type: 'crashed', error }));
  worker.on('messageerror', (error) => inbox.push({ type: 'crashed', error }));
  return { worker, inbox, exited, done: false };
}

/**
 * The checked records of `format`'s reader over `paths`, read on worker threads (import-worker.ts),
 * foods as their prepared rows: one worker, or, for a format read line by line, several that
 * take blocks of lines in turn, whose batches are taken in the same turn (the files' order).
 * A reader error ends the records where the reader failed, with the reader's message. Leaving
 * early (the import failed) stops the workers, which close their files; either way every
 * worker has exited when the iteration ends.
 */
export async function* readInWorker(format: string, paths: readonly string[], options: ReaderOptions): AsyncGenerator<ImportItem> {
  const readers = lineReaders();
  const shared = readers > 1 && (await loadLineRecords(format))?.reads(paths) === true;
  const job: WorkerJob = {
    format,
    paths: [...paths],
    ...(options.region ? { region: options.region } : {}),
    progress: options.onProgress !== undefined,
    batchSize: importBatchSize(),
    ahead: AHEAD,
  };
  const workers = shared
    ? Array.from({ length: readers }, (_, index) => startWorker({ ...job, share: { index, count: readers } }))
    : [startWorker(job)];
  try {
    for (let turn = 0; ; turn = (turn + 1) % workers.length) {
      const reading = workers[turn]!;
      const event = await reading.inbox.next();
      switch (event.type) {
        case 'batch':
          if (event.fraction !== null) options.onProgress?.(event.fraction);
          yield* decodeItems(event.batch);
          // Its strings were copied out as they were read: the buffer goes back to be written again.
          reading.worker.postMessage({ type: 'ack', buffer: event.batch.buffer } satisfies ToWorker, [event.batch.buffer]);
          break;
        case 'done':
          // Every block was sent: the other workers have read every line too.
          if (event.fraction !== null) options.onProgress?.(event.fraction);
          reading.done = true;
          return;
        case 'failed':
          throw fromWireError(event.error);
        case 'crashed':
          throw event.error;
        case 'exited':
          throw new Error(`the import worker stopped before the end of the records (exit code ${event.code})`);
      }
    }
  } finally {
    for (const reading of workers) if (!reading.done) reading.worker.postMessage({ type: 'stop' } satisfies ToWorker);
    await Promise.all(workers.map((reading) => ended(reading.worker, reading.exited)));
  }
}
