/**
 * A helper of the search data build's thread (build-thread-worker.ts): writes its share of the
 * top lists (top-lists.ts) from the same postings, which are in shared memory, and sends each
 * blob to the build's thread on the port it was given, then `done`.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { writeTopLists, type TopListInput, type TopListOptions } from './top-lists.js';
import { postBlob, type BlobMessage } from './build-thread.js';

/** What the helper sends: its blobs, then that it is done. */
export type FromTopListsThread = BlobMessage | { readonly type: 'done'; readonly lists: number };

const { input, options, port: out } = workerData as { input: TopListInput; options: TopListOptions; port: MessagePort };
const lists = writeTopLists(input, options, {
  put: (name, bytes) => postBlob(out, name, bytes),
});
out.postMessage({ type: 'done', lists } satisfies FromTopListsThread);
out.close();
