import Database from 'better-sqlite3';

/**
 * Everything a catalogue database holds, as text: equal snapshots mean the import changed
 * nothing, the search data (derived from the rest) included.
 */
export function snapshot(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = ['meta', 'brands', 'categories', 'category_closure', 'tags', 'foods', 'food_tags', 'food_upcs', 'search_blobs'];
    const out: Record<string, unknown[]> = {};
    // How long an import took is not what it wrote.
    for (const table of tables) out[table] = db.prepare(`SELECT * FROM ${table} ${table === 'meta' ? "WHERE key <> 'last_import_seconds'" : ''} ORDER BY 1, 2`).all();
    return JSON.stringify(out);
  } finally {
    db.close();
  }
}
