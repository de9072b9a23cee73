import Database from 'better-sqlite3';

/**
 * Everything a catalogue database holds, as text: equal snapshots mean the import changed
 * nothing. FTS tables are covered through the tables they index (their content is derived).
 */
export function snapshot(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = ['meta', 'brands', 'categories', 'category_closure', 'tags', 'foods', 'food_tags', 'food_upcs'];
    const out: Record<string, unknown[]> = {};
    // How long an import took is not what it wrote.
    for (const table of tables) out[table] = db.prepare(`SELECT * FROM ${table} ${table === 'meta' ? "WHERE key <> 'last_import_seconds'" : ''} ORDER BY 1, 2`).all();
    out['fts'] = db.prepare("SELECT count(*) AS n FROM foods_fts WHERE foods_fts MATCH 'cheese'").all();
    return JSON.stringify(out);
  } finally {
    db.close();
  }
}
