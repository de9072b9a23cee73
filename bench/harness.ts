/**
 * What a bench run is made of, as bench/run.ts and bench/request-split.ts use it: a server (or
 * hello-world) pinned to its cores, a load generator pinned to the other, the database file
 * read into the page cache, and waiting for the server to be idle.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load-spec.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'dist/src/cli/main.js');

export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** The command and arguments that run `command` on `core` (a taskset list), when taskset is there. */
export const pin = (core: string, command: string, args: string[]): [string, string[]] =>
  hasTaskset ? ['taskset', ['-c', core, command, ...args]] : [command, args];

/** Spawns a server and resolves with its URL once it prints "listening on". */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (d: Buffer): void => {
      output += d.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        resolve({ child, url: match[1]!, ms: performance.now() - started });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited ${code}: ${output.slice(-500)}`)));
  });
}

/** Sends SIGTERM and resolves once the process has exited. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Runs a load generator on core 1: bench/latency at one connection (each request timed in µs),
 * bench/load (autocannon) at more. Not spawnSync: a caller may sample the server meanwhile.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const generator = spec.connections === 1 ? 'dist/bench/latency.js' : 'dist/bench/load.js';
  const [command, args] = pin('1', process.execPath, [join(ROOT, generator)]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(JSON.stringify(spec));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`load failed: ${stderr}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}

/**
 * Reads the whole database file, so a run starts with all of it in the OS page cache: right
 * after an import, the pages written in its first minute may already have been reclaimed (this
 * VM pages out memory idle for a minute or so), and the first scenarios would then measure
 * the disk. Returns the seconds it took.
 */
export function readWhole(path: string): number {
  const started = performance.now();
  const chunk = Buffer.allocUnsafe(16 << 20);
  const fd = openSync(path, 'r');
  try {
    while (readSync(fd, chunk, 0, chunk.length, null) > 0);
  } finally {
    closeSync(fd);
  }
  return (performance.now() - started) / 1000;
}

/**
 * Waits until the server has worked off the last scenario's backlog: /healthz answers between
 * queued requests, so one fast answer proves little; four in a row, a second apart in all, do
 * (a queued slow request would hold one of them up).
 */
export async function drain(url: string): Promise<void> {
  let fast = 0;
  for (let i = 0; i < 600 && fast < 4; i++) {
    const started = performance.now();
    try {
      await fetch(`${url}/healthz`);
      fast = performance.now() - started < 50 ? fast + 1 : 0;
    } catch {
      fast = 0;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A GET of `url` on a new connection: the primary gives connections to the workers in turn, where a kept-alive one would ask the same worker each time. */
function getFresh(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('error', reject)
        .on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/**
 * The catalogue version a replica answers, where its copy of the rows, its read of the file's
 * pages ahead and its warm-up stand (/readyz).
 */
export async function readiness(serverUrl: string): Promise<{ version: number; localRows?: string; filePages?: string; searchWarmUp?: string }> {
  const { status, body } = await getFresh(`${serverUrl}/readyz`);
  if (status !== 200) throw new Error(`${serverUrl}/readyz answered ${status}: ${body.slice(0, 200)}`);
  return (JSON.parse(body) as { catalog: { version: number; localRows?: string; filePages?: string; searchWarmUp?: string } }).catalog;
}

/** Whether a server's work after it listened (/readyz, or its store's health) is still going on. */
export function stillWorking(state: { readonly filePages?: string; readonly searchWarmUp?: string }): boolean {
  return state.filePages === 'reading' || state.searchWarmUp === 'searching';
}

/**
 * Waits until a server has done what it does in the background once it listens: its search
 * engine's bound orders and a SQLite server's read of its file's pages ahead (page-map.ts;
 * `filePages` on /readyz), then its searches of its own (warm-searches.ts; `searchWarmUp`, which
 * covers the orders too, absent from builds before it), so that
 * the first scenario is not measured beside them; ms waited. `4 × workers` answers in a row say
 * so for every worker. A build without /readyz (before it existed) has none: 0.
 */
export async function backgroundDone(serverUrl: string, workers: number): Promise<number> {
  const started = performance.now();
  // A build from before /readyz (`--cli` of an older build) does nothing after it listens to wait for.
  const { status } = await getFresh(`${serverUrl}/readyz`);
  if (status === 404 || status === 401) return 0;
  for (let done = 0; done < 4 * workers;) {
    const state = await readiness(serverUrl);
    done = stillWorking(state) ? 0 : done + 1;
    if (performance.now() - started > 120_000) throw new Error(`the server's work after it listened did not end in 2 minutes: ${JSON.stringify(state)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - started;
}

/** The server process and its workers (with --workers N > 1 the primary only forwards signals). */
export function serverProcesses(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)]).stdout?.toString().trim().split('\n').filter(Boolean).map(Number) ?? [];
  return [pid, ...children];
}

/** A field of /proc/PID/status in KiB (VmHWM, RssAnon, …); 0 once the process is gone. */
export function statusKiB(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
