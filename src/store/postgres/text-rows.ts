import type pg from 'pg';
import type { Prepared } from './queries.js';

/** A row as PostgreSQL sends it in text format: one string per column, null for NULL. */
export type TextRow = (string | null)[];

/** The bookkeeping pg keeps on a connection of the statements it has prepared there (not in its types). */
interface PreparingConnection extends pg.Connection {
  readonly parsedStatements: Record<string, string | undefined>;
  readonly submittedNamedStatements: Record<string, string | undefined>;
}

/**
 * A named prepared statement run for its rows as the text PostgreSQL sends, through pg's
 * extension point for query objects (pg-cursor's): Parse once per connection, then Bind,
 * Execute and Sync — without the Describe that pg's own Query sends on every execution. The
 * server then sends no row description, and pg neither parses one nor makes a parser per column
 * and a result object for the rows: a page's rows at 1,000,000 foods are the hot read of a cold
 * search on this store, and that per-query work was most of the driver's share of it.
 *
 * pg calls the handlers below; `name` and `text` are read by it too (it records a statement as
 * prepared on this connection when the server confirms it, and forgets it when it fails), and
 * `callback` is set by it (pg-pool releases the connection there).
 */
export class TextRowsQuery implements pg.Submittable {
  callback: ((error: Error | null, rows?: TextRow[]) => void) | undefined;
  readonly name: string;
  readonly text: string;
  private readonly rows: TextRow[] = [];

  constructor(statement: Prepared, private readonly values: readonly string[]) {
    this.name = statement.name;
    this.text = statement.text;
  }

  submit(connection: pg.Connection): void {
    const prepared = connection as PreparingConnection;
    const stream = connection.stream as pg.Connection['stream'] & { cork?: () => void; uncork?: () => void };
    stream.cork?.();
    try {
      if (prepared.parsedStatements[this.name] === undefined && prepared.submittedNamedStatements[this.name] === undefined) {
        connection.parse({ name: this.name, text: this.text, types: [] }, true);
        prepared.submittedNamedStatements[this.name] = this.text;
      }
      connection.bind({ statement: this.name, values: [...this.values] }, true);
      connection.execute({}, true);
      connection.sync();
    } finally {
      stream.uncork?.();
    }
  }

  handleDataRow(message: { readonly fields: TextRow }): void {
    this.rows.push(message.fields);
  }

  handleReadyForQuery(): void {
    this.callback?.(null, this.rows);
  }

  /** An error from the server (pg forgets the statement's preparation then) or from the connection. */
  handleError(error: Error): void {
    this.callback?.(error);
  }

  // Sent by the server without a request of ours for them, or never for this statement: nothing to do.
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleCopyInResponse(connection: pg.Connection & { sendCopyFail?: (message: string) => void }): void {
    connection.sendCopyFail?.('a read query takes no COPY data');
  }
}

/** pg-pool's query with a query object and a callback (its types know the query object alone). */
interface CallbackPool {
  query(query: TextRowsQuery, callback: (error: Error | undefined, rows?: TextRow[]) => void): void;
}

/** The statement's rows as text, through a connection of the pool (released before the promise settles). */
export function textRows(pool: pg.Pool, statement: Prepared, values: readonly string[]): Promise<TextRow[]> {
  return new Promise((resolve, reject) => {
    (pool as unknown as CallbackPool).query(new TextRowsQuery(statement, values), (error, rows) => (error ? reject(error) : resolve(rows ?? [])));
  });
}
