import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { readLines, type Line } from '../../src/importers/line-reader.js';
import { tempDir } from '../helpers/paths.js';

/** Every line yielded and the count returned. */
async function readAll(path: string, skip?: (number: number) => boolean): Promise<{ lines: Line[]; count: number }> {
  const lines: Line[] = [];
  const read = readLines(path, skip === undefined ? {} : { skip });
  for (;;) {
    const next = await read.next();
    if (next.done === true) return { lines, count: next.value };
    lines.push(next.value);
  }
}

test('readLines: the lines a skip leaves, numbered as in the file, and the count of all of them (plain and gzip)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const line = fc.stringMatching(/^[a-z é]{0,40}$/);
    const ending = fc.constantFrom('\n', '\r\n');
    await fc.assert(fc.asyncProperty(fc.array(line, { maxLength: 30 }), ending, fc.boolean(), fc.integer({ min: 1, max: 4 }), async (texts, newline, lastNewline, every) => {
      const content = texts.join(newline) + (lastNewline && texts.length > 0 ? newline : '');
      // A line is what ends in a newline, and what follows the last one when it is not empty.
      const expected = content === '' ? [] : (content.endsWith(newline) ? content.slice(0, -newline.length) : content).split(newline);
      const skip = (number: number): boolean => number % every !== 0;
      for (const [name, bytes] of [['plain.txt', Buffer.from(content)], ['packed.txt.gz', gzipSync(content)]] as const) {
        const path = join(dir, name);
        writeFileSync(path, bytes);
        const { lines, count } = await readAll(path, skip);
        assert.equal(count, expected.length);
        assert.deepEqual(lines, expected.flatMap((text, i) => (skip(i + 1) ? [] : [{ number: i + 1, text }])));
        assert.equal((await readAll(path)).lines.length, expected.length);
      }
    }), { numRuns: 60 });
  } finally {
    cleanup();
  }
});
