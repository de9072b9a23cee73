import { availableParallelism } from 'node:os';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { envInteger } from '../config.js';
import type { BuildOptions, SearchFoodRow, SearchSource } from './build.js';

/**
 * The search data built on a thread of its own, fed the rows by the store's thread: after a large
 * import's records, the store's thread has the indexes to build and the checks to run (~8 s at
 * 1,000,000 foods), the build ~13-23 s of its own, and the machine a second core with nothing to
 * do. The store reads its rows as it would for `buildSearchData` and hands them over as they are
 * read, the name order when its name index exists; the build's blobs come back to be put in
 * order, `meta` last, while the store's thread waits for them.
 *
 * The build thread takes its rows with a blocking receive (build-thread-worker.ts), so that
 * `buildSearchData` stays one synchronous pass whichever thread runs it.
 */

/** Foods per message: ~0.5 MB of texts at 1,000,000 generated foods. */
const FOODS_PER_MESSAGE = 4096;

/**
 * Messages of foods sent and not yet taken before the store's thread waits: the store reads
 * rows faster than the build takes them, and without a bound the rows of ~500,000 foods waited
 * in the channel, ~100 MiB of the import's peak.
 */
const FOODS_AHEAD = 4;

/**
 * Catalogues of fewer foods build on the store's thread: starting a thread and its modules
 * costs ~50 ms, and below this the build itself takes under a second. FOODLOOKUP_SEARCH_THREAD_MIN
 * sets it (tests: 0, to take the thread with a few foods); one core builds on the store's thread.
 */
export function buildThreadMinFoods(): number {
  return availableParallelism() < 2 ? Infinity : envInteger('FOODLOOKUP_SEARCH_THREAD_MIN', 0, 100_000);
}

/** What the store's thread sends (the build thread takes them in this order, foods first). */
export type ToBuildThread =
  | {
      readonly type: 'foods';
      readonly rids: Uint32Array;
      readonly names: readonly string[];
      readonly classifications: readonly string[];
      readonly otherNames: readonly string[];
      readonly descriptions: readonly string[];
      readonly regions: readonly string[];
      readonly brands: Uint32Array;
      readonly categories: Uint32Array;
      readonly servings: Uint32Array;
    }
  | { readonly type: 'foods-end' }
  | { readonly type: 'tags'; readonly tags: Uint32Array; readonly starts: Uint32Array; readonly foods: Uint32Array }
  | { readonly type: 'name-order'; readonly rids: Uint32Array };

/** What a finished build says: its numbers of words and groups, and how many of its groups' and prefixes' top lists a helper wrote. */
export interface BuildThreadResult {
  readonly words: number;
  readonly groups: number;
  readonly helperLists: number;
}

/** A blob as a thread of the build sends it. */
export interface BlobMessage {
  readonly type: 'blob';
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** What the build thread sends back. */
export type FromBuildThread = BlobMessage | ({ readonly type: 'done' } & BuildThreadResult);

/**
 * Sends a blob to `port`. A copy, moved rather than copied again: a blob may be a view of an
 * array the build still reads (foods/place) or of postings in shared memory.
 */
export function postBlob(port: Pick<MessagePort, 'postMessage'>, name: string, bytes: Uint8Array): void {
  const copy = bytes.slice();
  port.postMessage({ type: 'blob', name, bytes: copy } satisfies BlobMessage, [copy.buffer]);
}

/** The build thread's start: what the store knows before any food is read. */
export interface BuildThreadJob {
  readonly ridLimit: number;
  readonly brands: readonly { readonly rid: number; readonly name: string; readonly generic: boolean }[];
  readonly options: BuildOptions;
  /** Threads that write the top lists, this one and helpers (1 or 2). */
  readonly topListThreads: number;
  /** The rows' port (the build thread's end of the channel). */
  readonly port: MessagePort;
  /**
   * [0]: messages sent on `port`, so that the build thread can sleep until the next one; [1]:
   * messages it took; [2]: 1 once the store's thread only waits for the blobs (`finish()`).
   */
  readonly counts: SharedArrayBuffer;
}

/** The search data being built on its thread. */
export class SearchBuildThread {
  private readonly worker: Worker;
  private readonly rows: MessagePort;
  /** BuildThreadJob.counts. */
  private readonly counts: Int32Array;
  private readonly finished: Promise<BuildThreadResult>;
  private failed: Error | undefined;

  /**
   * Starts the build of `source.ridLimit` rids and `source.brands()`; `put` gets each blob, in
   * the build's order, on the caller's thread, whenever its event loop turns.
   */
  constructor(source: Pick<SearchSource, 'ridLimit' | 'brands'>, options: BuildOptions, put: (name: string, bytes: Uint8Array) => void) {
    const channel = new MessageChannel();
    this.rows = channel.port1;
    const counts = new SharedArrayBuffer(12);
    this.counts = new Int32Array(counts);
    const job: BuildThreadJob = {
      ridLimit: source.ridLimit, brands: [...source.brands()], options, topListThreads: Math.min(2, availableParallelism()), port: channel.port2, counts,
    };
    this.worker = new Worker(new URL('./build-thread-worker.js', import.meta.url), { workerData: job, transferList: [channel.port2] });
    this.finished = new Promise((resolve, reject) => {
      let done = false;
      const fail = (error: Error): void => {
        if (done) return;
        this.failed ??= error;
        void this.worker.terminate();
        reject(this.failed);
      };
      this.worker.on('message', (message: FromBuildThread) => {
        if (this.failed) return;
        if (message.type === 'done') {
          done = true;
          const { type: _, ...result } = message;
          resolve(result);
          return;
        }
        try {
          put(message.name, message.bytes);
        } catch (error) {
          fail(error as Error);
        }
      });
      this.worker.on('error', fail);
      this.worker.on('messageerror', fail);
      this.worker.on('exit', (code) => fail(new Error(`the search data build thread exited (code ${code}) before it finished`)));
    });
    // Awaited in finish(); a failure before then must not count as unhandled.
    this.finished.catch(() => undefined);
  }

  private send(message: ToBuildThread, transfer: ArrayBuffer[]): void {
    this.rows.postMessage(message, transfer);
    Atomics.add(this.counts, 0, 1);
    Atomics.notify(this.counts, 0);
  }

  /** Every food, in any order, then the end of the foods; waits while the build thread is behind. A failed build rejects. */
  async foods(rows: Iterable<SearchFoodRow>): Promise<void> {
    let batch = newBatch();
    for (const row of rows) {
      const i = batch.names.length;
      batch.rids[i] = row.rid;
      batch.names.push(row.name);
      batch.classifications.push(row.classification);
      batch.otherNames.push(row.otherNames);
      batch.descriptions.push(row.description);
      batch.regions.push(row.region);
      batch.brands[i] = row.brand;
      batch.categories[i] = row.category;
      batch.servings[i] = row.servings;
      if (i + 1 === FOODS_PER_MESSAGE) {
        await this.sendFoods(batch, FOODS_PER_MESSAGE);
        batch = newBatch();
      }
    }
    if (batch.names.length > 0) await this.sendFoods(batch, batch.names.length);
    this.send({ type: 'foods-end' }, []);
  }

  private async sendFoods(batch: ReturnType<typeof newBatch>, n: number): Promise<void> {
    // Waited asynchronously: the build thread's failure is an event on this thread.
    for (let taken = Atomics.load(this.counts, 1); Atomics.load(this.counts, 0) - taken >= FOODS_AHEAD; taken = Atomics.load(this.counts, 1)) {
      if (this.failed) throw this.failed;
      const wait = Atomics.waitAsync(this.counts, 1, taken, 100);
      if (wait.async) {
        // An Atomics wait is not an event loop handle: without one, a loop with nothing else to do ends.
        const held = setTimeout(() => undefined, 200);
        await wait.value;
        clearTimeout(held);
      }
    }
    if (this.failed) throw this.failed;
    const cut = (a: Uint32Array): Uint32Array => (n === a.length ? a : a.slice(0, n));
    const message = { ...batch, type: 'foods' as const, rids: cut(batch.rids), brands: cut(batch.brands), categories: cut(batch.categories), servings: cut(batch.servings) };
    this.send(message, [message.rids.buffer, message.brands.buffer, message.categories.buffer, message.servings.buffer] as ArrayBuffer[]);
  }

  /** Each tag's foods (SearchSource.tagFoods). */
  tagFoods(tags: ReturnType<SearchSource['tagFoods']>): void {
    const tagRids: number[] = [];
    const starts: number[] = [0];
    const foods: number[] = [];
    for (const { tag, foods: tagged } of tags) {
      tagRids.push(tag);
      for (const rid of tagged) foods.push(rid);
      starts.push(foods.length);
    }
    const message = { type: 'tags' as const, tags: Uint32Array.from(tagRids), starts: Uint32Array.from(starts), foods: Uint32Array.from(foods) };
    this.send(message, [message.tags.buffer, message.starts.buffer, message.foods.buffer] as ArrayBuffer[]);
  }

  /** Every food's rid in name order (SearchSource.nameOrder). */
  nameOrder(rids: Iterable<number>): void {
    const order = Uint32Array.from(rids);
    this.send({ type: 'name-order', rids: order }, [order.buffer]);
  }

  /**
   * Once every blob was put: the build's counts. A failed build (or put) rejects. The caller has
   * nothing else to do meanwhile: the build may take its core for a helper.
   */
  finish(): Promise<BuildThreadResult> {
    Atomics.store(this.counts, 2, 1);
    return this.finished;
  }

  /** Ends the build unfinished (the import failed). */
  async stop(): Promise<void> {
    this.failed ??= new Error('the search data build was stopped');
    this.rows.close();
    await this.worker.terminate();
  }
}

function newBatch() {
  return {
    rids: new Uint32Array(FOODS_PER_MESSAGE),
    names: [] as string[],
    classifications: [] as string[],
    otherNames: [] as string[],
    descriptions: [] as string[],
    regions: [] as string[],
    brands: new Uint32Array(FOODS_PER_MESSAGE),
    categories: new Uint32Array(FOODS_PER_MESSAGE),
    servings: new Uint32Array(FOODS_PER_MESSAGE),
  };
}
