import pg from 'pg';
import { CONNECT_TIMEOUT_MS, endClient } from './connection.js';
import { CATALOG_CHANNEL, META_TABLE } from './schema.js';

/** How often the catalogue version is read when no notification came (the fallback for a missed one). */
export const POLL_MS = 1000;
/** Wait before listening again after the listening connection was lost. */
const RELISTEN_MS = 1000;

/**
 * Follows the committed catalogue version: an import NOTIFYs `foodlookup_catalog` with the new
 * version as it commits; a dedicated connection LISTENs (connected again whenever it is lost,
 * and then the version is read at once, since a notification sent meanwhile is gone), and the
 * version is also read every POLL_MS, so a missed notification delays a switch by a second at
 * most. `seen` gets every version heard of; the store decides whether it is new.
 */
export class CatalogFollower {
  private listener: pg.Client | undefined;
  private readonly poller: NodeJS.Timeout;
  private relisten: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly seen: (version: number) => void,
    pollMs = POLL_MS,
  ) {
    this.poller = setInterval(() => void this.poll(), pollMs);
    this.poller.unref();
    void this.listen();
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, application_name: 'foodlookup follow' });
    this.listener = client;
    let lost = false;
    const again = (): void => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.relisten = setTimeout(() => void this.listen(), RELISTEN_MS);
      this.relisten.unref();
    };
    client.on('error', again);
    client.on('end', again);
    client.on('notification', (message) => {
      const version = Number(message.payload);
      if (message.channel === CATALOG_CHANNEL && Number.isSafeInteger(version)) this.seen(version);
      else void this.poll();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOG_CHANNEL}`);
      // The connection's socket must not keep a process alive that has nothing else to do.
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      await this.poll();
    } catch {
      again();
    }
  }

  /** Reads the committed version; a failure (PostgreSQL away) is the requests' to report, not this timer's. */
  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const result = await this.pool.query<{ value: string }>(`SELECT value FROM ${META_TABLE} WHERE key = 'catalog_version'`);
      const version = Number(result.rows[0]?.value);
      if (Number.isSafeInteger(version)) this.seen(version);
    } catch {
      // Read again at the next tick.
    } finally {
      this.polling = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    if (this.relisten !== undefined) clearTimeout(this.relisten);
    const client = this.listener;
    this.listener = undefined;
    if (client !== undefined) await endClient(client);
  }
}
