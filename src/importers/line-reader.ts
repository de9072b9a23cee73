import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';

/** Longest line accepted: a longer one is an error, not a reason to buffer gigabytes. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineTooLong extends Error {}

export interface Line {
  readonly number: number;
  readonly text: string;
}

export interface LineOptions {
  readonly encoding?: BufferEncoding;
  readonly maxBytes?: number;
  /** Receives the fraction of the (compressed) file read so far. */
  readonly onProgress?: (fraction: number) => void;
  /** Lines (by number) not to decode nor yield: another reader of the same file takes them. */
  readonly skip?: (number: number) => boolean;
}

/**
 * Streams the lines of a file (plain or .gz) with bounded memory: a line longer than
 * `maxBytes` throws LineTooLong instead of being buffered whole. CR before LF is dropped.
 * Returns the number of lines the file has, skipped ones included.
 */
export async function* readLines(path: string, options: LineOptions = {}): AsyncGenerator<Line, number> {
  const { encoding = 'utf8', maxBytes = MAX_LINE_BYTES, onProgress, skip } = options;
  const size = (await stat(path)).size;
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const input: Readable = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  raw.on('error', (error) => input.destroy(error));
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  const decode = (parts: Buffer[]): string => {
    // Buffer.concat copies even one part, and almost every line is one part.
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString(encoding);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (pendingBytes + piece.length > maxBytes) throw new LineTooLong(`line ${number + 1} is longer than ${maxBytes} bytes`);
      number++;
      if (skip === undefined || !skip(number)) yield { number, text: decode(pendingBytes > 0 ? [...pending, piece] : [piece]) };
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    pendingBytes += rest.length;
    if (pendingBytes > maxBytes) {
      input.destroy();
      throw new LineTooLong(`line ${number + 1} is longer than ${maxBytes} bytes`);
    }
    if (rest.length > 0) pending.push(Buffer.from(rest));
    if (onProgress && size > 0) onProgress(Math.min(1, raw.bytesRead / size));
  }
  if (pendingBytes > 0) {
    number++;
    if (skip === undefined || !skip(number)) yield { number, text: decode(pending) };
  }
  return number;
}
