import cluster from 'node:cluster';
import { loadConfig, type Config } from '../config.js';
import { readOnlyNotice } from '../store/sqlite/file-access.js';
import { UsageError } from './usage.js';
import { addressInUse, isAddressInUse, portProblem } from './listen-errors.js';

/**
 * What `--single-threaded-gc` sets but --no-concurrent-sweeping: one setting, given whole or not
 * at all (with cppheap's concurrent marking left on, V8 aborted in its first full collection).
 */
export const COLLECTION_FLAGS: readonly string[] = [
  '--no-concurrent-marking', '--no-cppheap-concurrent-marking', '--no-parallel-marking', '--no-parallel-scavenge',
  '--no-parallel-compaction', '--no-parallel-pointer-update', '--no-concurrent-array-buffer-sweeping',
];

/**
 * Array builtins (map, every, filter, forEach…) called as builtins, not inlined into optimised
 * code: inlined, they are specialised to the elements kind of the arrays met so far, and the
 * search engine's small per-query arrays hold Smis, doubles, `undefined` or holes as queries
 * vary. A kind first met thousands of searches after a start still deoptimised the function it
 * reached, compiled again on the worker's one core in the middle of requests. At 1,000,000
 * foods, over 6,000 searches that followed 4,500 others: compiler time 298 ms against 928,
 * deoptimisations 7 against 28; the engine's CPU a search the same in process (scenario 12, mean
 * 0.30-0.32 ms either way); the main thread's time off its core at c=1 p99 1.36-2.52 ms in four
 * of five alternated runs of type-ahead after words (4.69 in one on a slow moment), against
 * 2.30-4.58 (`git show 60f0566:bench/README.md`, "The main thread off its core").
 */
const COMPILER_FLAGS: readonly string[] = ['--no-turbo-inline-array-builtins'];

/**
 * V8 settings of the serving processes, where the user gave none of their own (in NODE_OPTIONS
 * or node's arguments). V8's defaults suit batch work: a busy server's young generation grows
 * to 32 MiB, and its old generation to about four times the live heap before a full
 * collection. At 1,000,000 foods that was ~100 MiB of garbage next to ~120 MiB of live data and
 * caches: the bench's peak private memory a worker was 291 MiB, and is 222-224 MiB with these
 * (in `git log -p bench/README.md`); interleaved runs with and without them showed no throughput difference
 * beyond the machine's spread. Collections on the worker's thread but for sweeping (what
 * `--single-threaded-gc` sets, with concurrent sweeping left on): a worker is one core's work
 * (one a core, or one pinned), and V8's helper threads for marking and scavenging then take that
 * core from the worker's own thread in the middle of a collection; at 1,000,000 foods, one worker
 * pinned to one core, fts cold c=64 max 114 → 78 ms and p99 5.11 → 4.71 ms, type-ahead after
 * words c=1 p99 5.45 → 3.92 ms (partial bench runs of the same hour; the full run is in
 * `git log -p bench/README.md`). A collection on the worker's thread alone takes longer, and the old
 * generation held ~10 MiB more at its peak over the bench's scenarios (255 MiB with growth to
 * 1.5 × the live heap): it grows to 1.4 ×. Sweeping is the exception: without a thread of its
 * own, the pages a full collection left were swept all at once on the worker's thread when the
 * next marking started or a deoptimisation needed the heap swept (`perf` on the worker:
 * `Heap::EnsureSweepingCompleted`), ~96 ms at 1,000,000 foods on a slow machine, and under
 * type-ahead search a full collection comes about every second: one request of 75-133 ms in
 * each c=1 run of type-ahead after words, against at most 27 ms with sweeping beside it
 * (bench/README.md).
 * `foodlookup start` (the bundled data) serves in its own process.
 */
export const SERVING_V8_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=40', ...COMPILER_FLAGS, ...COLLECTION_FLAGS];

/**
 * glibc malloc settings of the serving processes, where the environment sets none of its own
 * (MALLOC_* or GLIBC_TUNABLES). ArrayBuffers live in malloc's memory: postings lists, bitmaps
 * and lists made for a query, up to megabytes each, come and go. glibc serves a block that
 * large from its own mapping, which goes back to the system when freed, but after the first
 * such block is freed it raises that bound up to 32 MiB, so later blocks came from the heap,
 * and their holes stayed private memory: at 1,000,000 foods 52-67 MiB of a worker's private
 * memory were free blocks inside malloc's heap (malloc_info) after the bench's scenarios, 20-30
 * with the bound fixed at glibc's initial 128 KiB.
 */
export const SERVING_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

function servingEnv(): Record<string, string> {
  const own = Object.keys(process.env).some((name) => name.startsWith('MALLOC_') || name === 'GLIBC_TUNABLES');
  return own ? {} : { ...SERVING_MALLOC_ENV };
}

/**
 * node's arguments for the serving processes: `execArgv` (node's own of this process) and each
 * SERVING_V8_FLAGS flag the user did not set, in either spelling (`--x`/`--no-x`, `-`/`_`), in
 * `nodeOptions` or `execArgv`. The collection flags go together: none of them when the user set
 * any, or `--single-threaded-gc` either way (the setting earlier versions gave).
 */
export function servingExecArgv(nodeOptions = process.env['NODE_OPTIONS'] ?? '', execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(`${nodeOptions} ${execArgv.join(' ')}`.split(/\s+/).map(flagName));
  const collectionGiven = given.has('single-threaded-gc') || COLLECTION_FLAGS.some((flag) => given.has(flagName(flag)));
  return [...execArgv, ...SERVING_V8_FLAGS.filter((flag) => !given.has(flagName(flag)) && !(collectionGiven && COLLECTION_FLAGS.includes(flag)))];
}

/** A V8 flag's name without its value, `no-` or dashes: `--no-single_threaded-gc` → `single-threaded-gc`. */
function flagName(arg: string): string {
  return arg.split('=')[0]!.replace(/^--?/, '').replace(/_/g, '-').replace(/^no-/, '');
}

/**
 * The primary forks N processes that share the port (node:cluster), each with its own store
 * connection, also when N is 1: they run with SERVING_V8_FLAGS and SERVING_MALLOC_ENV, which
 * can only be set when a process starts. It forwards SIGTERM/SIGINT and exits when they have all finished their
 * requests (each worker drains its own; see drainOnClose). A worker that dies unexpectedly is
 * replaced.
 */
function runPrimary(config: Config): void {
  // A lone worker accepts its connections itself. Node's default (round robin) has the primary
  // accept each one and hand it over through IPC, one at a time, and a busy worker takes a
  // handover only when its loop comes round: in the bench, before the turnstile kept the
  // worker's loop iterations short, the 64th connection of a burst waited up to 4.7 s for its
  // first answer, and 0.2 s with this. Several workers keep round robin, which spreads the
  // connections evenly. NODE_CLUSTER_SCHED_POLICY, when set, is the user's choice.
  if (config.workers === 1 && process.env['NODE_CLUSTER_SCHED_POLICY'] === undefined) cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ execArgv: servingExecArgv() });
  // Read by glibc when a process starts: set for the workers, not for this process.
  const malloc = servingEnv();
  let stopping = false;
  let failed = false;
  const started = new Set<number>();
  const fork = (): void => {
    const worker = cluster.fork(malloc);
    worker.once('listening', () => started.add(worker.id));
  };
  for (let i = 0; i < config.workers; i++) fork();
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  const metricsPort = config.metricsPort;
  if (metricsPort !== undefined) {
    // Loaded only here: the primary loads nothing of the HTTP service it does not use, and forks sooner.
    import('../http/metrics.js').then(({ listenClusterMetrics }) => listenClusterMetrics(config.host, metricsPort)).then(
      (server) => {
        const address = server.address();
        process.stderr.write(`metrics on http://${config.host}:${typeof address === 'object' && address ? address.port : config.metricsPort}/metrics\n`);
      },
      (error: unknown) => {
        process.stderr.write(`foodlookup serve: cannot serve metrics on port ${config.metricsPort}: ${error instanceof Error ? error.message : String(error)}\n`);
        stopping = true;
        failed = true;
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      },
    );
  }
  cluster.on('exit', (worker, code, signal) => {
    // A worker stops cleanly only when signalled: whichever process got the signal first, the
    // whole service is stopping, and every other process drains too.
    if (!stopping && started.has(worker.id) && code === 0) stop('SIGTERM');
    if (!stopping && !started.has(worker.id)) {
      // It failed before serving (a database it cannot open, a port in use) and so would
      // every replacement: the worker has said why; stop the others and exit as it did.
      stopping = true;
      failed = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
    }
    if (stopping) {
      // Dead, not gone: node:cluster drops a worker from cluster.workers on 'exit' only when its
      // IPC channel closed first, else on the 'disconnect' that follows, so the last worker's
      // 'exit' may still see itself listed (the primary then never exited).
      if (Object.values(cluster.workers ?? {}).every((w) => w === undefined || w.isDead())) process.exit(failed ? 1 : 0);
      return;
    }
    process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    fork();
  });
  // `on`, not `once`: a second signal must not end the primary by default action before its workers.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Serves until SIGTERM/SIGINT; -1 tells main not to set an exit code (the signal handler exits). */
export async function serveCommand(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const config = loadConfig(values);
  if (cluster.isPrimary) {
    const taken = await portProblem(config);
    if (taken !== undefined) {
      process.stderr.write(`foodlookup serve: ${taken}\n`);
      return 1;
    }
    // PostgreSQL: reachable, credentials taken, tables up to date, once, before any worker.
    if (config.databaseUrl) await (await import('../store/open-store.js')).preparePostgres(config.databaseUrl);
    // Refused here, before any worker: a missing file is never created (only `start` builds one).
    const readOnly = readOnlyNotice(config);
    if (readOnly !== undefined) process.stderr.write(`foodlookup serve: ${readOnly}\n`);
    // Opening for writing brings an older database up to date, which can take a while: done
    // once here, workers do not queue behind it for the write lock (and fail and restart).
    else if (config.workers > 1 && !config.databaseUrl) await (await (await import('../store/open-store.js')).openStore(config, { readonly: false })).close();
    runPrimary(config);
    return -1;
  }
  // First thing in a worker, before the service's modules load and its store opens: the
  // primary's scrapes meanwhile get this worker's nothing rather than a 5 s wait for it.
  if (config.metricsPort !== undefined) (await import('../http/metrics.js')).answerPrimaryForMetrics();
  let server;
  try {
    server = await (await import('../server.js')).startServer(config);
  } catch (error) {
    if (!isAddressInUse(error)) throw error;
    // Taken between the primary's check and this worker's listen: the primary stops on this exit.
    process.stderr.write(`foodlookup serve: ${addressInUse(config.host, config.port)}\n`);
    process.exitCode = 1;
    if (process.connected) process.disconnect();
    return -1;
  }
  process.stderr.write(`foodlookup listening on ${server.url} (JSON ${server.url}/v1, SOAP ${server.url}/soap/1.2)\n`);
  return -1;
}
