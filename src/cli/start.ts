import { existsSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.js';
import { formatReader } from '../importers/formats.js';
import { runImport } from '../importers/run-import.js';
import { openStore } from '../store/open-store.js';
import { startServer } from '../server.js';
import { databaseAccess, readOnlyNotice } from '../store/sqlite/file-access.js';
import { openTokenStore } from '../tokens/open.js';
import { issueDevelopmentToken } from '../tokens/token-service.js';
import { summaryLine } from './import.js';
import { UsageError } from './usage.js';
import { addressInUse, isAddressInUse } from './listen-errors.js';
import '../importers/register-all.js';


/** The bundled data, relative to the installed package (dist/src/cli → data/). */
export const BUNDLED_USDA = fileURLToPath(new URL('../../../data/usda-sr21', import.meta.url));

export async function startCommand(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  const config = loadConfig(values);
  let developmentToken: string | undefined;
  if (!config.databaseUrl && !existsSync(config.dbPath)) {
    const cannot = databaseAccess(config.dbPath).readOnlyBecause;
    if (cannot !== undefined) throw new Error(`cannot build ${config.dbPath}: ${cannot}`);
    const reader = formatReader('usda-sr');
    if (!reader) throw new Error('the usda-sr importer is not available');
    process.stderr.write(`building ${config.dbPath} from the bundled USDA SR21 data…\n`);
    // Built aside and renamed when complete: an interrupted first start leaves no half database
    // that the next start would take as ready.
    const building = `${config.dbPath}.building`;
    rmSync(building, { force: true });
    const store = await openStore({ ...config, dbPath: building }, { readonly: false });
    const started = performance.now();
    try {
      const summary = await runImport(store, reader([BUNDLED_USDA], { region: 'us' }), { replace: false, skipInvalid: false });
      process.stderr.write(`${summaryLine(summary, (performance.now() - started) / 1000)}\n`);
    } finally {
      await store.close();
    }
    renameSync(building, config.dbPath);
    const tokens = await openTokenStore(config);
    try {
      developmentToken = (await issueDevelopmentToken(tokens))?.secret;
    } finally {
      await tokens.close();
    }
  }
  const readOnly = readOnlyNotice(config);
  if (readOnly !== undefined) process.stderr.write(`foodlookup start: ${readOnly}\n`);
  let server;
  try {
    server = await startServer(config);
  } catch (error) {
    if (!isAddressInUse(error)) throw error;
    process.stderr.write(`foodlookup start: ${addressInUse(config.host, config.port)}\n`);
    return 1;
  }
  process.stderr.write(`foodlookup listening on ${server.url}\n`);
  if (developmentToken !== undefined) {
    // Shown this once (only its hash is stored); a wildcard listen address is reached via loopback.
    const url = server.url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
    process.stderr.write(
      `development token (shown only now; manage tokens with 'foodlookup tokens'): ${developmentToken}\n` +
        `try: curl -u ${developmentToken}: '${url}/v1/foods?query=cheddar'\n` +
        `explore: ${url}/   API reference: ${url}/docs\n`,
    );
  } else if (!config.databaseUrl) {
    // The first start printed a token once (only its hash is kept): say how to get another.
    process.stderr.write(
      `using ${config.dbPath}: the token printed when it was built is not shown again. Lost it? Create another:\n` +
        `  npx foodlookup tokens create --name dev --db ${config.dbPath}\n`,
    );
  }
  return -1;
}
