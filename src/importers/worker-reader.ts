import { Worker } from 'node:worker_threads';
import { envInteger } from '../config.js';
import type { ImportItem } from './check-record.js';
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
 * The checked records of `format`'s reader over `paths`, read on a worker thread (import-worker.ts),
 * foods as their prepared rows. A reader error ends the records where the reader failed, with
 * the reader's message. Leaving early (the import failed) stops the worker, which closes its
 * files; either way the worker has exited when the iteration ends.
 */
export async function* readInWorker(format: string, paths: readonly string[], options: ReaderOptions): AsyncGenerator<ImportItem> {
  const job: WorkerJob = {
    format,
    paths: [...paths],
    ...(options.region ? { region: options.region } : {}),
    progress: options.onProgress !== undefined,
    batchSize: importBatchSize(),
    ahead: AHEAD,
  };
  const worker = new Worker(new URL('./import-worker.js', import.meta.url), { workerData: job });
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
  const tell = (message: ToWorker): void => worker.postMessage(message);
  let done = false;
  try {
    for (;;) {
      const event = await inbox.next();
      switch (event.type) {
        case 'batch':
          if (event.fraction !== null) options.onProgress?.(event.fraction);
          yield* decodeItems(event.slots);
          tell({ type: 'ack' });
          break;
        case 'done':
          if (event.fraction !== null) options.onProgress?.(event.fraction);
          done = true;
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
    if (!done) tell({ type: 'stop' });
    await ended(worker, exited);
  }
}
