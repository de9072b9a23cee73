import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { CLI, ROOT } from './paths.js';
import type { RunAs } from './cli.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { checkResponse } from './openapi.js';
import { asTestStore, type TestStore } from './stores.js';

export const TEST_TOKEN = 'test-token-0123456789';

export interface TestServer extends RunningServer {
  /** GET with the test token (unless `token: null`), returning status, headers and parsed body. */
  get(path: string, options?: { token?: string | null; headers?: Record<string, string> }): Promise<TestResponse>;
  fetch(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export function basic(token: string): string {
  return `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
}

/**
 * The real server on a free port of 127.0.0.1 (or `options.host`, e.g. `::1`) over a real SQLite
 * file (a path) or a test store (SQLite or PostgreSQL); `env` adds settings such as REDIS_URL or
 * FOODLOOKUP_TRUST_PROXY.
 */
export async function startTestServer(db: string | TestStore, env: Record<string, string> = {}, options: { host?: string } = {}): Promise<TestServer> {
  const flags = { ...asTestStore(db).flags, port: '0', host: options.host ?? '127.0.0.1' };
  const config = loadConfig(flags, { FOODLOOKUP_TOKENS: TEST_TOKEN, LOG_LEVEL: 'silent', ...env });
  const server = await startServer(config, { handleSignals: false });
  const doFetch = async (path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> => {
    const { token = TEST_TOKEN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null && !headers.has('authorization')) headers.set('authorization', basic(token));
    const response = await fetch(server.url + path, { ...rest, headers });
    // Every answer a test receives must be what the published OpenAPI document says.
    checkResponse(rest.method ?? 'GET', path, response.status, response.headers.get('content-type'), await response.clone().text());
    return response;
  };
  return {
    ...server,
    fetch: doFetch,
    async get(path, options = {}) {
      const response = await doFetch(path, { token: options.token, headers: options.headers ?? {} });
      const text = await response.text();
      let body: unknown = undefined;
      if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text);
      return { status: response.status, headers: response.headers, body, text };
    },
  };
}

/**
 * Waits until a PostgreSQL replica with a row copy folder (--row-copy-dir) says, on /readyz, that
 * the catalogue version it answers has its rows copied: its pages come from that copy from then on.
 */
export async function localRowsReady(url: string, version?: number, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    const response = await fetch(`${url}/readyz`);
    last = await response.text();
    const catalog = response.ok ? (JSON.parse(last) as { catalog: { version: number; localRows?: string } }).catalog : undefined;
    if (catalog?.localRows === 'ready' && (version === undefined || catalog.version === version)) return;
    if (catalog?.localRows === undefined && response.ok) throw new Error(`the server makes no copy of the rows: /readyz ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the rows were not copied within ${timeoutMs} ms: /readyz ${last}`);
}

/** `foodlookup serve` in a child process: its log lines (stdout) and stderr are kept for assertions. */
export interface ServeProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything written so far: stdout holds the JSON log lines. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code (contract C1: 0 after a graceful stop). */
  stop(): Promise<number | null>;
  /** The exit code, once it has exited for whatever reason (no signal sent). */
  readonly exited: Promise<number | null>;
}

export function spawnServe(
  db: string | TestStore, env: Record<string, string> = {}, args: readonly string[] = [],
  options: RunAs & { readonly detached?: boolean } = {},
): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...asTestStore(db).args, '--port', '0', ...args], {
      cwd: ROOT,
      env: { ...process.env, FOODLOOKUP_TOKENS: TEST_TOKEN, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
    });
    let stdout = '';
    let stderr = '';
    let started = false;
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in 20 s: ${stderr}`));
    }, 20_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match && !started) {
        started = true;
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          pid: child.pid ?? -1,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
          exited,
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`serve exited with ${code}: ${stderr}`));
    });
  });
}

/** Once every worker of `serve --workers N` has said it listens (spawnServe returns at the first). */
export async function untilWorkersListen(server: ServeProcess, workers: number): Promise<void> {
  for (let waited = 0; (server.stderr().match(/listening on/g) ?? []).length < workers; waited += 50) {
    if (waited >= 20_000) throw new Error(`not every worker listened within 20 s: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * `count` servers started together (replicas of one store); should one not start, those that
 * did are stopped before the error is thrown, rather than left running to hold the test's
 * process open until its timeout.
 */
export async function spawnServes(count: number, db: string | TestStore, env: Record<string, string> = {}): Promise<ServeProcess[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => spawnServe(db, env)));
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed === undefined) return servers;
  await Promise.all(servers.map((server) => server.stop()));
  throw failed.reason;
}
