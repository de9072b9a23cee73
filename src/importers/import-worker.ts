/**
 * The import worker (started by worker-reader.ts): runs a format's reader, checks each record
 * (checkRecord) and turns each food into its row (foodRow), and sends the results in batches,
 * never more than `ahead` batches before the importing thread has put them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { foodRow } from '../store/food-row.js';
import { checkRecord } from './check-record.js';
import { loadFormat } from './format-modules.js';
import { encodeItem, toWireError, type FromWorker, type Slot, type ToWorker, type WorkerJob } from './import-wire.js';

const port = parentPort;
if (!port) throw new Error('import-worker.js runs as a worker thread (worker-reader.ts starts it)');
const job = workerData as WorkerJob;

let unacknowledged = 0;
let stopping = false;
let wake: (() => void) | undefined;

const onMessage = (message: ToWorker): void => {
  if (message.type === 'ack') unacknowledged--;
  else stopping = true;
  wake?.();
  wake = undefined;
};
port.on('message', onMessage);

const post = (message: FromWorker): void => port.postMessage(message);

let fraction: number | null = null;
/** The fraction read when it moved since the last message, else null. */
const progress = (): number | null => {
  const moved = fraction;
  fraction = null;
  return moved;
};

/** Sends a batch; returns once fewer than `ahead` batches wait to be put (or the import stops). */
async function send(slots: Slot[]): Promise<void> {
  post({ type: 'batch', slots, fraction: progress() });
  unacknowledged++;
  while (unacknowledged >= job.ahead && !stopping) await new Promise<void>((resolve) => (wake = resolve));
}

async function run(): Promise<void> {
  const reader = await loadFormat(job.format);
  if (!reader) throw new Error(`unknown format '${job.format}'`);
  const records = reader(job.paths, {
    ...(job.region ? { region: job.region } : {}),
    ...(job.progress ? { onProgress: (f: number) => void (fraction = f) } : {}),
  });
  let slots: Slot[] = [];
  let count = 0;
  // Leaving the loop early (stop) returns the reader, which closes its files.
  for await (const record of records) {
    if (stopping) return;
    const item = checkRecord(record);
    encodeItem(item.kind === 'food' ? { kind: 'food-row', row: foodRow(item.value), source: item.source } : item, slots);
    if (++count === job.batchSize) {
      await send(slots);
      if (stopping) return;
      slots = [];
      count = 0;
    }
  }
  if (stopping) return;
  if (count > 0) post({ type: 'batch', slots, fraction: progress() });
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
