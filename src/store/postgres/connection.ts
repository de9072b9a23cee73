import pg from 'pg';
import { settlesWithin } from '../../deadline.js';

/**
 * The PostgreSQL connection: a pool with bounds that keep every request under the 5 s the
 * contract allows a dependency (connect 2 s, statements 4 s), and errors that name the server
 * but never the password.
 */

/** Longest wait for a connection from the pool or the server. */
export const CONNECT_TIMEOUT_MS = 2000;
/** Longest a request's statement runs, client side and server side. */
export const STATEMENT_TIMEOUT_MS = 4000;
/**
 * Longest a replica's read of a version's search data runs (one COPY: 123 MiB at 1,000,000
 * foods). No request waits for it — a replica loads before it listens and switches in the
 * background — so it bounds a hang, not a client's wait. Under the requests' 4 s, that read
 * (then as hex text, twice the size) was cancelled every time on a loaded VM whose disk had
 * dropped it from the page cache: the replica could not start, nor switch to a new version.
 */
export const LOAD_TIMEOUT_MS = 120_000;

export interface PoolOptions {
  /** Connections in the pool (default 10). */
  readonly max?: number;
  /**
   * Statement bound in ms; 0 for none. An import's statements (COPY of a million rows, index
   * builds) run for longer than a request may, so its connection has none.
   */
  readonly statementTimeoutMs?: number;
  /** Shown in pg_stat_activity. */
  readonly applicationName?: string;
}

/** Throws unless the URL is a postgres:// or postgresql:// URL; the message never holds the password. */
export function checkDatabaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('--database-url / DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(`--database-url / DATABASE_URL must be a postgres:// or postgresql:// URL, not ${parsed.protocol}//…`);
  }
  // A URL ends at '#': a password holding one as it is would be cut there, and its first part read as the host and port.
  if (url.includes('#')) throw new Error("--database-url / DATABASE_URL cannot hold '#': write it %23 (in a password, for instance)");
}

/** host:port/database of the URL, with no user name or password: the form every message uses. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    // As pg reads the URL (pg-connection-string): `host` and `port` in the query win over the authority's.
    const host = parsed.searchParams.get('host') || parsed.hostname || 'localhost';
    const port = parsed.searchParams.get('port') || parsed.port || '5432';
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)';
    return `${host}:${port}/${database}`;
  } catch {
    return '(unparsable database URL)';
  }
}

/** PostgreSQL cannot be reached or stopped answering: a request that needs it is answered 503. */
export class StoreUnavailable extends Error {
  constructor(
    readonly database: string,
    readonly reason: string,
  ) {
    super(`PostgreSQL at ${database} is unavailable: ${reason}`);
    this.name = 'StoreUnavailable';
  }
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** Server states that pass: shut down by an administrator, crash recovery, starting up, too many connections. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

/** Whether an error means the server is away or not answering (as opposed to a fault of the statement). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailable) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  // pg's own: a pool that cannot connect in time, a query past query_timeout, a connection that ended.
  return /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error|not queryable/i
    .test(err.message);
}

/** The error as a StoreUnavailable when it is one, else unchanged; never carries the URL's password. */
export function unavailableOr(err: unknown, url: string): unknown {
  if (err instanceof StoreUnavailable || !isUnavailable(err)) return err;
  return new StoreUnavailable(describeDatabase(url), (err as Error).message || String((err as { code?: unknown }).code));
}

/**
 * A pool on the URL. Errors of clients (the server went away) are absorbed here: the next
 * query reconnects, and an unhandled 'error' event would end the process.
 */
export function openPool(url: string, options: PoolOptions = {}): pg.Pool {
  checkDatabaseUrl(url);
  const statementTimeout = options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? 'foodlookup',
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + 500 } : {}),
    keepAlive: true,
  });
  pool.on('error', () => {
    // An idle client lost its connection: the pool drops it, the next checkout connects again.
  });
  const clients = new Set<pg.PoolClient>();
  pool.on('connect', (client) => {
    clients.add(client);
    // A client lent out (pool.connect(): a version's load, its copy of the rows, a migration) has
    // no listener of the pool's: a connection reset then ended the process. Its query fails
    // with the error all the same, and its holder releases it.
    client.on('error', () => undefined);
  });
  pool.on('remove', (client) => clients.delete(client));
  poolClients.set(pool, clients);
  return pool;
}

/**
 * Runs one query to prove the server answers and accepts the credentials; otherwise a one-line
 * error naming the host (StoreUnavailable when it is away, a plain Error for refused credentials).
 */
export async function checkConnection(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (isUnavailable(err)) throw new StoreUnavailable(describeDatabase(url), reason);
    throw new Error(`PostgreSQL at ${describeDatabase(url)}: ${reason}`);
  }
}

/** One client for one piece of work (an admin statement, a check), ended whatever happens. */
export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** How long a connection's end waits for the server's goodbye before its socket is closed under it. */
export const END_WAIT_MS = 2000;

/**
 * Ends a client, waiting at most `ms` for the server: pg's end() settles when the server closes
 * the socket, which a frozen server (or a network that drops packets) never does, and a
 * replica's stop or an import's last step would wait on it for ever.
 */
export async function endClient(client: pg.Client, ms = END_WAIT_MS): Promise<void> {
  await settlesWithin(client.end(), ms);
  closeSocket(client);
}

/** Ends a pool of openPool as endClient ends a client: its clients' sockets are closed after `ms`. */
export async function endPool(pool: pg.Pool, ms = END_WAIT_MS): Promise<void> {
  // Taken first: the pool forgets a client as it asks it to end, not once it has (nor ever
  // waits for one it dropped before, whose end may be waiting too).
  const held = [...(poolClients.get(pool) ?? [])];
  await settlesWithin(Promise.all([pool.end().catch(() => undefined), ...held.map(socketClosed)]), ms);
  for (const client of held) closeSocket(client);
}

/** The clients each pool of openPool holds, so that endPool can close their sockets. */
const poolClients = new WeakMap<pg.Pool, Set<pg.PoolClient>>();

type Socketed = { connection?: { stream?: { destroy?: () => void; destroyed?: boolean; once?: (event: 'close', listener: () => void) => void } } };

/** Settles when the client's socket has closed. */
function socketClosed(client: pg.ClientBase): Promise<void> {
  const stream = (client as unknown as Socketed).connection?.stream;
  return new Promise((resolve) => {
    if (stream?.once === undefined || stream.destroyed === true) resolve();
    else stream.once('close', resolve);
  });
}

/** Closes a client's socket at once (nothing when it is closed): its pending query fails, 'error' and 'end' follow. */
export function closeSocket(client: pg.ClientBase): void {
  (client as unknown as Socketed).connection?.stream?.destroy?.();
}
