import { isUuid, normaliseId } from '../domain/ids.js';
import type { IdFilter, ListFilter } from '../store/catalog-store.js';

// Lists have no length limit of their own: the URL's 64 KiB bounds them (contract C3), and the
// stores take a list as one parameter (json_each), whatever its length.

export class ListSyntaxError extends Error {}

function items(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function uuidItem(item: string): string {
  if (!isUuid(item)) throw new ListSyntaxError(`'${item.slice(0, 80)}' is not a uuid`);
  return normaliseId(item);
}

/** `A,!B,C`: `!` marks single ids (brands and tags of /foods, tags elsewhere). */
export function parseIdFilter(raw: string): IdFilter {
  const list = items(raw);
  const include = new Set<string>();
  const exclude = new Set<string>();
  for (const item of list) {
    if (item.startsWith('!')) exclude.add(uuidItem(item.slice(1).trim()));
    else include.add(uuidItem(item));
  }
  return { include: [...include], exclude: [...exclude] };
}

/** `!A,B`: a leading `!` inverts the whole list. */
export function parseIdList(raw: string): ListFilter {
  const trimmed = raw.trim();
  const inverted = trimmed.startsWith('!');
  const list = items(inverted ? trimmed.slice(1) : trimmed);
  if (inverted && list.length === 0) throw new ListSyntaxError("'!' must be followed by at least one id");
  return { values: [...new Set(list.map(uuidItem))], inverted };
}

/**
 * Classification strings: comma-separated, a value may be double-quoted to keep commas,
 * `\"` inside quotes is a literal quote, spaces around values are trimmed, empty items are
 * ignored, a leading `!` inverts the list.
 */
export function parseClassifications(raw: string): ListFilter {
  let text = raw.trimStart();
  const inverted = text.startsWith('!');
  if (inverted) text = text.slice(1);
  const values: string[] = [];
  let current = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '\\' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        current += ch;
      }
    } else if (ch === '"' && current.trim() === '') {
      quoted = true;
      wasQuoted = true;
      current = '';
    } else if (ch === ',') {
      const value = wasQuoted ? current : current.trim();
      if (value.trim() !== '') values.push(value.trim());
      current = '';
      wasQuoted = false;
    } else if (wasQuoted && ch.trim() === '') {
      // spaces after a closing quote
    } else if (wasQuoted) {
      throw new ListSyntaxError(`unexpected '${ch}' after a closing quote at position ${i + (inverted ? 2 : 1)}`);
    } else {
      current += ch;
    }
  }
  if (quoted) throw new ListSyntaxError('unterminated quote');
  if (current.trim() !== '') values.push(current.trim());
  if (inverted && values.length === 0) throw new ListSyntaxError("'!' must be followed by at least one classification");
  return { values: [...new Set(values)], inverted };
}
