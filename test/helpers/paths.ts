import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root, from the compiled test's location (dist/test/helpers). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = join(ROOT, 'dist/src/cli/main.js');

export function fixturePath(name: string): string {
  return join(ROOT, 'test/fixtures', name);
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'foodlookup-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
