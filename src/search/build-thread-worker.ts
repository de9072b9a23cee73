/**
 * The search data build's thread (started by build-thread.ts): runs the build (build.ts: its
 * parts, the top lists, `meta`) over the rows the store's thread sends, and sends each blob back
 * as it is made.
 */
import { MessageChannel, Worker, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { buildSearchParts, finishSearchData, type SearchFoodRow, type SearchParts, type SearchSource } from './build.js';
import { postBlob, type BuildThreadJob, type FromBuildThread, type ToBuildThread } from './build-thread.js';
import { writeTopLists, type TopListOptions } from './top-lists.js';
import type { FromTopListsThread } from './top-lists-worker.js';

const out = parentPort;
if (!out) throw new Error('build-thread-worker.js runs as a worker thread (build-thread.ts starts it)');
const job = workerData as BuildThreadJob;
const counts = new Int32Array(job.counts);
let received = 0;
/** Messages taken ahead of the one asked for (the tags arrive before the name order is asked for). */
const early: ToBuildThread[] = [];

/** The next message from the store's thread, waiting for it: the build is one synchronous pass. */
function next(): ToBuildThread {
  for (;;) {
    const got = receiveMessageOnPort(job.port);
    if (got !== undefined) {
      Atomics.store(counts, 1, ++received);
      Atomics.notify(counts, 1);
      return got.message as ToBuildThread;
    }
    // Sleeps until the store's thread has sent more than this thread has taken.
    Atomics.wait(counts, 0, received);
  }
}

function take<T extends ToBuildThread['type']>(type: T): Extract<ToBuildThread, { type: T }> {
  const at = early.findIndex((m) => m.type === type);
  if (at >= 0) return early.splice(at, 1)[0] as Extract<ToBuildThread, { type: T }>;
  for (;;) {
    const message = next();
    if (message.type === type) return message as Extract<ToBuildThread, { type: T }>;
    early.push(message);
  }
}

const source: SearchSource = {
  ridLimit: job.ridLimit,
  brands: () => job.brands,
  *foods(): Iterable<SearchFoodRow> {
    for (;;) {
      const message = next();
      if (message.type === 'foods-end') return;
      if (message.type !== 'foods') throw new Error(`search data build: ${message.type} before the end of the foods`);
      for (let i = 0; i < message.names.length; i++) {
        yield {
          rid: message.rids[i]!, name: message.names[i]!, classification: message.classifications[i]!, otherNames: message.otherNames[i]!,
          description: message.descriptions[i]!, region: message.regions[i]!, brand: message.brands[i]!, category: message.categories[i]!,
          servings: message.servings[i]!,
        };
      }
    }
  },
  nameOrder: () => take('name-order').rids,
  *tagFoods() {
    const { tags, starts, foods } = take('tags');
    for (let t = 0; t < tags.length; t++) yield { tag: tags[t]!, foods: foods.subarray(starts[t], starts[t + 1]) };
  },
};

/** Sends a blob to the store's thread. */
const send = (name: string, bytes: Uint8Array): void => postBlob(out, name, bytes);

/** A helper writing top lists beside this thread (top-lists-worker.ts), its blobs passed on from here. */
interface Helper {
  /** Passes on the blobs it has sent so far. */
  passWaiting(): void;
  /** Once it has written its last list and every blob of it was passed on: how many groups and prefixes it took. */
  readonly ended: Promise<number>;
}

function startHelper(parts: SearchParts, options: TopListOptions): Helper {
  const channel = new MessageChannel();
  const helper = new Worker(new URL('./top-lists-worker.js', import.meta.url), {
    workerData: { input: parts.topInput, options, port: channel.port2 },
    transferList: [channel.port2],
  });
  let done: number | undefined;
  const passOn = (message: FromTopListsThread): void => {
    if (message.type === 'done') done = message.lists;
    else out!.postMessage(message, [message.bytes.buffer as ArrayBuffer]);
  };
  const passWaiting = (): void => {
    for (let got = receiveMessageOnPort(channel.port1); got !== undefined; got = receiveMessageOnPort(channel.port1)) {
      passOn(got.message as FromTopListsThread);
    }
  };
  channel.port1.on('message', passOn);
  const ended = new Promise<number>((resolve, reject) => {
    helper.on('error', reject);
    helper.on('exit', (code) => {
      // Its last messages may not have been delivered yet.
      passWaiting();
      channel.port1.close();
      if (done !== undefined) resolve(done);
      else reject(new Error(`the top lists' helper thread exited (code ${code}) before it finished`));
    });
  });
  ended.catch(() => undefined);
  return { passWaiting, ended };
}

/**
 * The top lists, the last ~40 % of the build, shared with a helper thread once the store's
 * thread has nothing left to do but wait for the blobs (BuildThreadJob.counts [2]): before that,
 * the store's indexes and checks have the other core, and a third thread would only take turns
 * with them, holding its memory meanwhile. The two draw the lists from one counter.
 */
async function writeTopListsBeside(parts: SearchParts): Promise<number> {
  const options: TopListOptions = { ...parts.topOptions, tickets: new Int32Array(new SharedArrayBuffer(4)) };
  let helper: Helper | undefined;
  const join = (): void => {
    if (helper === undefined && Atomics.load(counts, 2) === 1) helper = startHelper(parts, options);
    helper?.passWaiting();
  };
  join();
  writeTopLists(parts.topInput, options, {
    put: (name, bytes) => {
      send(name, bytes);
      join();
    },
  });
  return (await helper?.ended) ?? 0;
}

const parts = buildSearchParts(source, { put: send }, { ...job.options, sharedPostings: job.topListThreads > 1 });
let helperLists = 0;
if (job.topListThreads > 1) helperLists = await writeTopListsBeside(parts);
else writeTopLists(parts.topInput, parts.topOptions, { put: send });
const { words, groups } = finishSearchData(parts, { put: send });
out.postMessage({ type: 'done', words, groups, helperLists } satisfies FromBuildThread);
job.port.close();
