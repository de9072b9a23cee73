import { spawn } from 'node:child_process';
import { CLI, ROOT } from './paths.js';
import { asTestStore, type TestStore } from './stores.js';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Who a child process runs as (see test/helpers/users.ts); the test's own user when absent. */
export interface RunAs {
  readonly uid?: number;
  readonly gid?: number;
}

/** Runs the real `foodlookup` CLI in a child process. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000, as: RunAs = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...as,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`foodlookup ${args.join(' ')} did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `foodlookup import <format> <paths…> --db <db>` (or `--database-url`); throws with the output when it fails. */
export async function importInto(db: string | TestStore, format: string, paths: readonly string[], flags: readonly string[] = []): Promise<CliResult> {
  const result = await runCli(['import', format, ...paths, ...asTestStore(db).args, ...flags]);
  if (result.code !== 0) throw new Error(`import failed (${result.code}): ${result.stderr}`);
  return result;
}
