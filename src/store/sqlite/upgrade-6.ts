import type { Database } from 'better-sqlite3';
import { foodBarcodeKeys } from '../../domain/barcodes.js';
import type { Serving } from '../../domain/records.js';
import { servingsForBody } from '../../domain/revision.js';

/**
 * Brings a database of schema 5 or older to schema 6 in place, without a re-import: the
 * barcode keys of every food (food_upcs), and `isDefault` / `defaultServing` in every stored
 * body (the first serving: older catalogues could not name another). Revisions do not move:
 * a first-serving default is not part of a food's revision. Runs inside migrate()'s
 * transaction; at 1,000,000 foods it rewrites every body once.
 */
export function upgradeToBarcodesAndDefaults(db: Database): void {
  const insertKey = db.prepare('INSERT OR IGNORE INTO food_upcs (upc_key, food_rid) VALUES (?, ?)');
  const codes = db.prepare<[], { rid: number; code: string }>(
    "SELECT f.rid, j.key AS code FROM foods f, json_each(f.body, '$.upcs') j",
  );
  const byFood = new Map<number, string[]>();
  for (const { rid, code } of codes.iterate()) {
    const list = byFood.get(rid);
    if (list) list.push(code);
    else byFood.set(rid, [code]);
  }
  for (const [rid, list] of byFood) for (const key of foodBarcodeKeys(list)) insertKey.run(key, rid);

  const update = db.prepare('UPDATE foods SET body = ? WHERE rid = ?');
  const bodies = db.prepare<[], { rid: number; body: string }>(
    "SELECT rid, body FROM foods WHERE json_type(body, '$.defaultServing') IS NULL",
  );
  const rewritten: [string, number][] = [];
  for (const { rid, body } of bodies.iterate()) rewritten.push([withDefaultServing(body), rid]);
  for (const [body, rid] of rewritten) update.run(body, rid);
}

/** A stored body with `isDefault` on its servings and `defaultServing` right after them, member order kept. */
export function withDefaultServing(body: string): string {
  const parsed = JSON.parse(body) as Record<string, unknown> & { servings: Serving[] };
  const texts = servingsForBody(parsed.servings, 0);
  let out = '{';
  for (const [key, value] of Object.entries(parsed)) {
    if (key === 'defaultServing') continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:`;
    if (key === 'servings') out += `${texts.servings},"defaultServing":${texts.defaultServing}`;
    else out += JSON.stringify(value);
  }
  return `${out}}`;
}
