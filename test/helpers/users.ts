import { spawnSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import { CLI } from './paths.js';
import type { RunAs } from './cli.js';

/**
 * Someone file permissions apply to. Root may write a file mode 0444 or into a folder mode 0555,
 * so a test of read-only places runs the CLI as `nobody` (uid/gid 65534) when the suite runs as
 * root (CI), and as the test's own user otherwise. Undefined, with the reason, when neither can
 * see a read-only place (root without a nobody able to run the built CLI).
 */
export function restrictedUser(): { as: RunAs; own: (path: string) => void } | { reason: string } {
  const uid = process.getuid?.();
  if (uid === undefined) return { reason: 'no POSIX users on this platform' };
  if (uid !== 0) return { as: {}, own: () => undefined };
  const nobody = { uid: 65534, gid: 65534 };
  const probe = spawnSync(process.execPath, [CLI, '--help'], { ...nobody, encoding: 'utf8' });
  if (probe.status !== 0) return { reason: `running as root, and user nobody cannot run ${CLI}: ${probe.stderr || probe.error?.message}` };
  return { as: nobody, own: (path) => chownSync(path, nobody.uid, nobody.gid) };
}
