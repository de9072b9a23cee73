/**
 * The import worker (started by worker-reader.ts): runs a format's reader, checks each record
 * (checkRecord) and turns each food into its row (foodRow), and sends the results in batches,
 * never more than `ahead` batches before the importing thread has put them. With a share of a
 * line-by-line format's files, it reads every line but decodes and sends only its own blocks.
 */
import { basename } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { CatalogRecord } from '../domain/records.js';
import { foodRow } from '../store/food-row.js';
import { checkRecord } from './check-record.js';
import { loadFormat, loadLineRecords } from './format-modules.js';
import { BatchWriter } from './batch-bytes.js';
import { encodeItem, toWireError, type FromWorker, type ToWorker, type WorkerJob } from './import-wire.js';
import { readLines } from './line-reader.js';

const port = parentPort;
if (!port) throw new Error('import-worker.js runs as a worker thread (worker-reader.ts starts it)');
const job = workerData as WorkerJob;

let unacknowledged = 0;
let stopping = false;
let wake: (() => void) | undefined;

/** The batches' buffers the importing thread sent back, to write the next batches over. */
const spare: ArrayBuffer[] = [];

const onMessage = (message: ToWorker): void => {
  if (message.type === 'ack') {
    unacknowledged--;
    if (message.buffer !== undefined) spare.push(message.buffer);
  } else stopping = true;
  wake?.();
  wake = undefined;
};
port.on('message', onMessage);

const post = (message: FromWorker): void => port.postMessage(message);

/** Sends what `batch` holds, its buffer transferred: the importing thread reads it without a copy. */
const postBatch = (batch: BatchWriter): void => {
  const bytes = batch.take();
  port.postMessage({ type: 'batch', batch: bytes, fraction: progress() } satisfies FromWorker, [bytes.buffer]);
};

let fraction: number | null = null;
/** The fraction read when it moved since the last message, else null. */
const progress = (): number | null => {
  const moved = fraction;
  fraction = null;
  return moved;
};

/** Sends a batch; returns once fewer than `ahead` batches wait to be put (or the import stops). */
async function send(batch: BatchWriter): Promise<void> {
  postBatch(batch);
  unacknowledged++;
  while (unacknowledged >= job.ahead && !stopping) await new Promise<void>((resolve) => (wake = resolve));
}

function encodeRecord(record: CatalogRecord, batch: BatchWriter): void {
  const item = checkRecord(record);
  encodeItem(item.kind === 'food' ? { kind: 'food-row', row: foodRow(item.value), source: item.source } : item, batch);
}

const onProgress = (f: number): void => void (fraction = f);

async function run(): Promise<void> {
  if (job.share !== undefined) return runShare(job.share);
  const reader = await loadFormat(job.format);
  if (!reader) throw new Error(`unknown format '${job.format}'`);
  const records = reader(job.paths, {
    ...(job.region ? { region: job.region } : {}),
    ...(job.progress ? { onProgress } : {}),
  });
  const batch = new BatchWriter(spare);
  let count = 0;
  // Leaving the loop early (stop) returns the reader, which closes its files.
  for await (const record of records) {
    if (stopping) return;
    encodeRecord(record, batch);
    if (++count === job.batchSize) {
      await send(batch);
      if (stopping) return;
      count = 0;
    }
  }
  if (stopping) return;
  if (count > 0) postBatch(batch);
  post({ type: 'done', fraction: progress() });
}

/**
 * Sends one batch for each of this share's blocks, in order, then 'done'. Every share counts
 * every line, so the importing thread, taking blocks from the shares in turn, puts the records
 * in the files' order; the first share alone reports progress (all read the same bytes).
 */
async function runShare(share: { readonly index: number; readonly count: number }): Promise<void> {
  const lines = await loadLineRecords(job.format);
  if (!lines) throw new Error(`format '${job.format}' is not read line by line`);
  const block = job.batchSize;
  let before = 0;
  /** Whether a block of ours has lines not yet sent (a block may go on in the next file). */
  let open = false;
  const batch = new BatchWriter(spare);
  for (const path of job.paths) {
    const file = basename(path);
    const offset = before;
    const ours = (number: number): boolean => Math.floor((offset + number - 1) / block) % share.count === share.index;
    const read = readLines(path, { skip: (number) => !ours(number), ...(job.progress && share.index === 0 ? { onProgress } : {}) });
    try {
      for (;;) {
        const next = await read.next();
        if (next.done === true) {
          before += next.value;
          break;
        }
        if (stopping) return;
        const number = next.value.number;
        const record = lines.record(next.value.text, { file, line: number });
        if (record !== undefined) encodeRecord(record, batch);
        open = true;
        if ((offset + number) % block === 0) {
          await send(batch);
          open = false;
        }
      }
    } finally {
      // Closes the file when the loop is left early.
      await read.return(0);
    }
  }
  if (stopping) return;
  if (open) postBatch(batch);
  post({ type: 'done', fraction: progress() });
}

try {
  await run();
} catch (error) {
  if (!stopping) post({ type: 'failed', error: toWireError(error) });
} finally {
  // Nothing else keeps the thread alive: it ends once the reader's files are closed.
  port.off('message', onMessage);
}
