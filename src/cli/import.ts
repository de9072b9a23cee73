import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../config.js';
import { isRegion } from '../domain/regions.js';
import { formatNames, formatReader } from '../importers/formats.js';
import { ImportFailed, runImportFromFiles, type ImportSummary } from '../importers/run-import.js';
import { openStore } from '../store/open-store.js';
import { databaseAccess } from '../store/sqlite/file-access.js';
import { restInRollbackMode } from '../store/sqlite/import-journal.js';
import { Progress } from './progress.js';
import { UsageError } from './usage.js';
import '../importers/register-all.js';


export function summaryLine(summary: ImportSummary, seconds: number): string {
  const { added, changed, unchanged, skipped } = summary;
  return `imported: ${added} added, ${changed} changed, ${unchanged} unchanged, ${skipped} skipped in ${seconds.toFixed(1)} s`;
}

export async function importCommand(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  const [format, ...paths] = positionals;
  if (!format) throw new UsageError('name a format and at least one path');
  if (!formatReader(format)) throw new UsageError(`unknown format '${format}' (known: ${formatNames().join(', ')})`);
  if (paths.length === 0) throw new UsageError('name at least one path to import');
  for (const path of paths) if (!existsSync(path)) throw new UsageError(`no such file or folder: ${path}`);
  const region = values['region'];
  if (region !== undefined && (typeof region !== 'string' || !isRegion(region))) throw new UsageError("--region must be 'au' or 'us'");
  const config = loadConfig(values);
  const access = config.databaseUrl ? { exists: true } : databaseAccess(config.dbPath);
  if (access.readOnlyBecause !== undefined) {
    process.stderr.write(`foodlookup import: cannot import into ${config.dbPath}: ${access.readOnlyBecause}\n`);
    return 1;
  }
  // A database this import creates is removed again if the import fails: none is left empty.
  const createdFolder = access.exists ? undefined : mkdirSync(dirname(config.dbPath), { recursive: true });
  const store = openStore(config, { readonly: false });
  const progress = new Progress(process.stderr);
  const started = performance.now();
  let failed = true;
  try {
    const readerOptions = { ...(region ? { region } : {}), onProgress: (f: number) => progress.fraction(f) };
    const summary = await runImportFromFiles(store, format, paths, readerOptions, {
      replace: values['replace'] === true,
      skipInvalid: values['skip-invalid'] === true,
      onSkip: (message) => progress.message(`skipped ${message}`),
      onRecords: (count) => progress.records(count),
      onFinishing: () => progress.status('checking the catalogue, ranking common words…'),
    });
    progress.done();
    process.stdout.write(`${summaryLine(summary, (performance.now() - started) / 1000)}\n`);
    failed = false;
    return 0;
  } catch (error) {
    progress.done();
    if (error instanceof ImportFailed || error instanceof Error) {
      process.stderr.write(`import failed, nothing was changed: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
    if (failed && !access.exists) {
      for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${config.dbPath}${suffix}`, { force: true });
      if (createdFolder !== undefined) rmSync(createdFolder, { recursive: true, force: true });
    } else if (!config.databaseUrl) {
      // Ready to be served from a read-only file or folder (a container's data volume).
      restInRollbackMode(config.dbPath);
    }
  }
}
