import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';

/**
 * PostgreSQL's COPY text format (one row a line, fields split by tabs, `\N` for NULL, backslash
 * escapes), both ways: bulk loading and reading whole tables through COPY skips the per-row
 * message and parsing cost of INSERT and SELECT, which at a million foods is most of the time.
 */

const ESCAPE_OUT = /[\\\t\n\r\b\f\v]/g;
/** The same without /g: `test` on a global pattern moves its lastIndex. */
const NEEDS_ESCAPE = /[\\\t\n\r\b\f\v]/;
const ESCAPES_OUT: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v' };

/** One field as COPY FROM reads it; null is NULL. */
export function copyField(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPE_OUT, (c) => ESCAPES_OUT[c]!) : value;
}

/** One row, newline included. */
export function copyRow(values: readonly (string | number | null)[]): string {
  let line = copyField(values[0] ?? null);
  for (let i = 1; i < values.length; i++) line += `\t${copyField(values[i] ?? null)}`;
  return `${line}\n`;
}

const ESCAPES_IN: Readonly<Record<string, string>> = { '\\': '\\', t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', v: '\v' };

/** A field of COPY TO's output; null for NULL. */
export function parseField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  // COPY TO writes only these escapes (never octal or hex ones).
  return field.replace(/\\(.)/g, (_, c: string) => ESCAPES_IN[c] ?? c);
}

/** The rows of a COPY … TO STDOUT stream, each as its raw fields (parseField them as needed). */
export async function* copyLines(stream: Readable): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const text = rest + decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      yield text.slice(start, end).split('\t');
      start = end + 1;
    }
    rest = text.slice(start);
  }
  rest += decoder.end();
  if (rest !== '') yield rest.split('\t');
}
