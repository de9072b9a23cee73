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

/** Stable JSON: object keys sorted, so equal content always gives equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The revision a food's content implies: uuid v5 over its canonical JSON without
 * `revisionId`. It changes exactly when the content changes; tag order does not count.
 */
export function deriveRevisionId(food: CatalogFood): string {
  const { revisionId: _ignored, ...content } = food;
  return uuidV5(canonical({ ...content, tags: [...content.tags].sort() }));
}
