import { accessSync, constants, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';

/** Every setting, typed and frozen; each has a flag and an environment variable (contract C1). */
export interface Config {
  readonly dbPath: string;
  readonly databaseUrl?: string;
  readonly host: string;
  readonly port: number;
  /** Tokens accepted in addition to the stored ones, without limits. */
  readonly tokens: readonly string[];
  readonly redisUrl?: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Honour X-Forwarded-For / -Host / -Proto (only behind a trusted proxy). */
  readonly trustProxy: boolean;
  /** Server processes sharing the port (node:cluster); default one per CPU with REDIS_URL, else 1. */
  readonly workers: number;
  /** Origins allowed to call the API from a browser (CORS): '*' or a list; absent = CORS off. */
  readonly corsOrigins?: '*' | readonly string[];
  /** Port of the Prometheus endpoint (GET /metrics), on HOST; absent = no metrics. */
  readonly metricsPort?: number;
  /** The synonym files searches use, in order; 'default' is the list that ships (src/search/synonyms.txt). */
  readonly synonyms: readonly string[];
  /** Bytes of answers each serving process keeps (http/response-cache.ts); 0 keeps none. */
  readonly responseCacheBytes: number;
  /** With PostgreSQL: a folder on this machine's disk where each serving process copies the catalogue's food rows (absent = none). */
  readonly rowCopyDir?: string;
}

/**
 * The response cache's default bound, per serving process. At 1,000,000 foods 16 MiB missed as
 * often as 32 on the bench's Zipf mix; type-ahead at 64 connections (scenario 11, its 1,650
 * answers asked again and again) answered 0.4-0.8 as many requests per second as with 32, at
 * 0.046-0.073 × hello-world still above its target (0.03). The 16 MiB go to the search's list
 * cache (search/search-index.ts LIST_CACHE_BYTES), which every search that is not a repeat reads.
 */
export const RESPONSE_CACHE_MIB = 16;

export class ConfigError extends Error {}

/**
 * A database URL that cannot name a PostgreSQL server: one line naming the host, never the
 * password, exit status 1 (contract C1), rather than a usage error.
 */
export class DatabaseUrlError extends Error {}

/** Where a URL points, for messages: scheme, host and port, never the user or password. */
function urlPlace(url: URL): string {
  return `${url.protocol}//${url.host || '(no host)'}`;
}

/** Throws DatabaseUrlError unless `text` is a postgres:// or postgresql:// URL. */
function checkDatabaseUrlText(text: string, source: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DatabaseUrlError(`${source} must be a postgres:// or postgresql:// URL such as postgres://user@db.example.com:5432/foodlookup; it does not parse as a URL`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DatabaseUrlError(`${source} must be a postgres:// or postgresql:// URL, not one to ${urlPlace(url)}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Flags = Readonly<Record<string, string | boolean | undefined>>;

function pick(flags: Flags, flag: string, env: NodeJS.ProcessEnv, variable: string): string | undefined {
  const value = flags[flag];
  if (typeof value === 'string') return value;
  const fromEnv = env[variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

function bool(value: string | boolean | undefined, name: string): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got '${value}'`);
}

/**
 * A whole number from the environment for an internal threshold (tests set them to reach a
 * code path with little data): `fallback` when unset or not a whole number ≥ `min`.
 */
export function envInteger(variable: string, min: number, fallback: number): number {
  const raw = process.env[variable];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n >= min ? n : fallback;
}

/** `*`, or comma-separated origins (scheme://host[:port]), each checked: a typo must not silently allow nothing. */
function corsOrigins(text: string): '*' | readonly string[] {
  if (text.trim() === '*') return '*';
  const origins = text.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(`cors origins must be '*' or origins such as https://app.example.com, got '${origin}'`);
    }
  }
  if (origins.length === 0) throw new ConfigError("cors origins must be '*' or a comma-separated list of origins");
  return Object.freeze(origins.map((o) => o.replace(/\/$/, '')));
}

/** The row copy folder as an absolute path, checked now: a typo must not silently leave every page to PostgreSQL. */
function rowCopyDirOf(text: string): string {
  const dir = resolve(text);
  try {
    if (!statSync(dir).isDirectory()) throw new ConfigError(`row copy dir '${dir}' is not a folder`);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`row copy dir '${dir}' must be a folder this process can write to: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return dir;
}

/**
 * The PostgreSQL URL, when PostgreSQL is the store: a flag beats the environment, so an explicit
 * `--db` wins over a DATABASE_URL another program left in the environment, and `--database-url`
 * wins over both (contract C1).
 */
function databaseUrlOf(flags: Flags, env: NodeJS.ProcessEnv): string | undefined {
  const flag = flags['database-url'];
  if (typeof flag === 'string') {
    checkDatabaseUrlText(flag, '--database-url');
    return flag;
  }
  if (typeof flags['db'] === 'string') return undefined;
  const fromEnv = env['DATABASE_URL'];
  if (fromEnv === undefined || fromEnv === '') return undefined;
  checkDatabaseUrlText(fromEnv, 'DATABASE_URL');
  return fromEnv;
}

/** Builds the config from command-line flags first, then the environment, then defaults. */
export function loadConfig(flags: Flags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const dbPath = pick(flags, 'db', env, 'FOODLOOKUP_DB') ?? './data/foodlookup.db';
  const portText = pick(flags, 'port', env, 'PORT') ?? '8080';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new ConfigError(`port must be 0–65535, got '${portText}'`);
  const logLevel = (pick(flags, 'log-level', env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const tokens = (env['FOODLOOKUP_TOKENS'] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== '');
  const databaseUrl = databaseUrlOf(flags, env);
  const redisUrl = pick(flags, 'redis-url', env, 'REDIS_URL');
  const trustProxyFlag = flags['trust-proxy'];
  // One process per CPU, unless quotas would then be counted per process (no shared Redis).
  const workersText = pick(flags, 'workers', env, 'FOODLOOKUP_WORKERS') ?? String(redisUrl ? Math.min(64, availableParallelism()) : 1);
  if (!/^\d{1,2}$/.test(workersText) || Number(workersText) < 1 || Number(workersText) > 64) {
    throw new ConfigError(`workers must be 1–64, got '${workersText}'`);
  }
  const cors = pick(flags, 'cors-origins', env, 'FOODLOOKUP_CORS_ORIGINS');
  const metricsText = pick(flags, 'metrics-port', env, 'FOODLOOKUP_METRICS_PORT');
  if (metricsText !== undefined && (!/^\d{1,5}$/.test(metricsText) || Number(metricsText) > 65535)) {
    throw new ConfigError(`metrics port must be 0–65535, got '${metricsText}'`);
  }
  const cacheText = pick(flags, 'response-cache-mb', env, 'FOODLOOKUP_RESPONSE_CACHE_MB') ?? String(RESPONSE_CACHE_MIB);
  if (!/^\d{1,5}$/.test(cacheText)) throw new ConfigError(`response cache must be a whole number of MiB (0 keeps none), got '${cacheText}'`);
  const synonyms = (pick(flags, 'synonyms', env, 'FOODLOOKUP_SYNONYMS') ?? 'default').split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (synonyms.length === 0) throw new ConfigError("synonyms must name at least one file (or 'default')");
  const rowCopyText = pick(flags, 'row-copy-dir', env, 'FOODLOOKUP_ROW_COPY_DIR');
  const rowCopyDir = rowCopyText !== undefined && databaseUrl ? rowCopyDirOf(rowCopyText) : undefined;
  return Object.freeze({
    ...(cors !== undefined ? { corsOrigins: corsOrigins(cors) } : {}),
    ...(metricsText !== undefined ? { metricsPort: Number(metricsText) } : {}),
    synonyms: Object.freeze(synonyms.map((p) => (p === 'default' || isAbsolute(p) ? p : resolve(p)))),
    dbPath: dbPath === ':memory:' || isAbsolute(dbPath) ? dbPath : resolve(dbPath),
    ...(databaseUrl ? { databaseUrl } : {}),
    host: pick(flags, 'host', env, 'HOST') ?? '127.0.0.1',
    port: Number(portText),
    tokens: Object.freeze(tokens),
    ...(redisUrl ? { redisUrl } : {}),
    logLevel,
    workers: Number(workersText),
    responseCacheBytes: Number(cacheText) * 2 ** 20,
    ...(rowCopyDir !== undefined ? { rowCopyDir } : {}),
    trustProxy: bool(trustProxyFlag !== undefined ? trustProxyFlag : env['FOODLOOKUP_TRUST_PROXY'], 'trust-proxy'),
  });
}
