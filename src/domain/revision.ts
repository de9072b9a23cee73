import { createHash } from 'node:crypto';
import type { CatalogFood } from './records.js';
import { ID_NAMESPACES } from './ids.js';

const REVISION_NAMESPACE = Buffer.from(ID_NAMESPACES.revision.replace(/-/g, ''), 'hex');

/**
 * RFC 4122 uuid v5 (SHA-1 of namespace + name). The same as `uuid`'s v5, computed with
 * node:crypto on the UTF-8 bytes directly: `uuid` converts the name to bytes in JS, which
 * was 7 % of a large import's time, and this runs once per imported food.
 */
function uuidV5(name: string): string {
  const hash = createHash('sha1').update(REVISION_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Stable JSON: object keys sorted, so equal content always gives equal text. Built by
 * concatenation rather than entries/filter/map/join: it runs on every imported food, and the
 * intermediate arrays were most of its cost. Keys sort by UTF-16 code units (the default sort,
 * as `<` compares); `undefined` members are left out and `undefined` array items are empty,
 * as before, so every revision stays what it was.
 */
function canonical(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonical(value[i]) ?? '';
    }
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(object).sort()) {
      const member = object[key];
      if (member === undefined) continue;
      if (out.length > 1) out += ',';
      out += `${JSON.stringify(key)}:${String(canonical(member))}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}

/**
 * The revision a food's content implies: uuid v5 over its canonical JSON without
 * `revisionId`. It changes exactly when the content changes; tag order does not count.
 */
export function deriveRevisionId(food: CatalogFood): string {
  const { revisionId: _ignored, ...content } = food;
  return uuidV5(canonical({ ...content, tags: [...content.tags].sort() })!);
}
