import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * A scratch SQLite file that the FDC tables are streamed into, so joining a 26-million-row
 * food_nutrient.csv to its foods takes disk, not memory. It lives in the OS temp folder (or
 * FOODLOOKUP_TMPDIR) and is deleted when the import ends, whatever the outcome.
 */
export class Staging {
  readonly db: Database.Database;
  private readonly dir: string;

  constructor() {
    this.dir = mkdtempSync(join(process.env['FOODLOOKUP_TMPDIR'] ?? tmpdir(), 'foodlookup-fdc-'));
    this.db = new Database(join(this.dir, 'staging.db'));
    // Nothing here must survive a crash: the file is thrown away either way.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    // Lookups run in fdc_id order, so a small cache does; the catalogue being written has its own.
    this.db.pragma('cache_size = -16384');
    this.db.exec(`
      CREATE TABLE food (fdc_id INTEGER PRIMARY KEY, data_type TEXT NOT NULL, description TEXT NOT NULL,
        category_id TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL);
      CREATE TABLE branded (fdc_id INTEGER PRIMARY KEY, brand_owner TEXT NOT NULL, brand_name TEXT NOT NULL,
        gtin_upc TEXT NOT NULL, serving_size REAL, serving_unit TEXT NOT NULL, household TEXT NOT NULL,
        category TEXT NOT NULL, market TEXT NOT NULL, ingredients TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL);
      CREATE TABLE food_nutrient (fdc_id INTEGER NOT NULL, nbr TEXT NOT NULL, unit TEXT NOT NULL, amount REAL NOT NULL);
      CREATE TABLE portion (fdc_id INTEGER NOT NULL, seq INTEGER, amount REAL, unit TEXT NOT NULL,
        description TEXT NOT NULL, modifier TEXT NOT NULL, grams REAL NOT NULL);
      CREATE TABLE problem (file TEXT NOT NULL, line INTEGER NOT NULL, reason TEXT NOT NULL, fdc_id INTEGER);
    `);
  }

  /** Runs `load` in one transaction: one fsync-free commit per table instead of one per row. */
  load(load: () => Promise<void>): Promise<void> {
    this.db.exec('BEGIN');
    return load().then(
      () => void this.db.exec('COMMIT'),
      (error: unknown) => {
        this.db.exec('ROLLBACK');
        throw error;
      },
    );
  }

  /** Indexes built once, after loading, which is far cheaper than keeping them during inserts. */
  index(): void {
    this.db.exec(`
      CREATE INDEX food_nutrient_by_food ON food_nutrient (fdc_id);
      CREATE INDEX portion_by_food ON portion (fdc_id, seq);
      CREATE INDEX problem_by_food ON problem (fdc_id);
    `);
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
