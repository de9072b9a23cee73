import Database from 'better-sqlite3';

/**
 * Everything a catalogue database holds, as text: equal snapshots mean the import changed
 * nothing, the search data (derived from the rest) included.
 */
export function snapshot(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = ['meta', 'brands', 'categories', 'category_closure', 'tags', 'foods', 'food_tags', 'search_blobs'];
    const out: Record<string, unknown[]> = {};
    for (const table of tables) out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all();
    return JSON.stringify(out);
  } finally {
    db.close();
  }
}
