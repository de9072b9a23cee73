/**
 * Preloaded into a serving worker by bench/request-split.ts (`node --import`): what each request
 * spent, from the HTTP request event to the response's last byte handed to the kernel. Per
 * request: the wall time, the main thread's time on a core and its time runnable but waiting for
 * one (/proc/thread-self/schedstat, in ns; getrusage's CPU times move in the kernel's 4 ms
 * ticks), minor and major page faults, voluntary and involuntary context switches, the garbage collections' pauses within it, the search engine's time
 * (`SearchEngine.foods`) and the lists it loaded or made for the first time (the list cache's
 * misses). The counters are the process's, so the figures mean something at one connection
 * only, one request at a time; the hook's own reads (~0.02-0.04 ms a request) are in them. Written as JSON to `$REQUEST_SPLIT_OUT/<pid>.json` when the
 * worker exits.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { SearchEngine } from '../src/search/engine.js';
import { ListCache } from '../src/search/search-index.js';

/** One request, as bench/request-split.ts reads it. */
export interface RequestParts {
  readonly url: string;
  readonly start: number;
  readonly wall: number;
  /** The main thread's time on a core when the request came (ms since the thread started): what it did between two requests. */
  readonly threadAt: number;
  readonly mainThread: number;
  /** The main thread's time runnable but not on a core (another thread or process had it). */
  readonly runQueue: number;
  readonly faults: number;
  /** Page faults that waited for the disk (a file page the kernel had dropped). */
  readonly majorFaults: number;
  readonly preempted: number;
  /** Times the main thread gave up its core to wait (the disk, a lock). */
  readonly blocked: number;
  readonly engine: number;
  readonly loads: number;
  readonly loadMs: number;
}

/** What a worker writes: its requests in order, and its collections' pauses (start, duration; ms on `performance.now()`'s clock). */
export interface RequestTrace {
  readonly requests: RequestParts[];
  readonly pauses: [number, number][];
}

const out = process.env['REQUEST_SPLIT_OUT'];
const trace: RequestTrace = { requests: [], pauses: [] };
let engine = 0;
let loads = 0;
let loadMs = 0;

/** The calling thread's time on a core so far and its time waiting for one, in ms (Linux; 0 elsewhere). */
function threadMs(): [number, number] {
  try {
    const [on, waiting] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
    return [Number(on) / 1e6, Number(waiting) / 1e6];
  } catch {
    return [0, 0];
  }
}

if (out !== undefined) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) trace.pauses.push([e.startTime, e.duration]);
  }).observe({ entryTypes: ['gc'] });

  // Reflect: the originals are called with the instance as `this`.
  const foods = Reflect.get(SearchEngine.prototype, 'foods');
  SearchEngine.prototype.foods = function timedFoods(this: SearchEngine, ...args: Parameters<SearchEngine['foods']>) {
    const started = performance.now();
    try {
      return Reflect.apply(foods, this, args);
    } finally {
      engine += performance.now() - started;
    }
  };
  const get = Reflect.get(ListCache.prototype, 'get');
  ListCache.prototype.get = function timedGet(this: ListCache, key, load) {
    return Reflect.apply(get, this, [key, () => {
      const started = performance.now();
      try {
        return load();
      } finally {
        loads++;
        loadMs += performance.now() - started;
      }
    }]);
  };

  const emit = Reflect.get(Server.prototype, 'emit');
  Server.prototype.emit = function timedEmit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'request') {
      const [request, response] = args as [IncomingMessage, ServerResponse];
      const start = performance.now();
      const usage = process.resourceUsage();
      const [thread, queued] = threadMs();
      engine = 0;
      loads = 0;
      loadMs = 0;
      response.once('finish', () => {
        const now = process.resourceUsage();
        const [threadNow, queuedNow] = threadMs();
        trace.requests.push({
          url: request.url ?? '', start, wall: performance.now() - start, threadAt: thread, mainThread: threadNow - thread, runQueue: queuedNow - queued,
          faults: now.minorPageFault - usage.minorPageFault, majorFaults: now.majorPageFault - usage.majorPageFault,
          preempted: now.involuntaryContextSwitches - usage.involuntaryContextSwitches, blocked: now.voluntaryContextSwitches - usage.voluntaryContextSwitches,
          engine, loads, loadMs,
        });
      });
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  };

  process.once('exit', () => {
    if (trace.requests.length > 0) writeFileSync(join(out, `${process.pid}.json`), JSON.stringify(trace));
  });
}
