/**
 * The c=1 load generator: one kept-alive connection, one request at a time, each timed with
 * the high-resolution clock from the first byte written to the last byte of the response read.
 * autocannon's histogram counts whole milliseconds, too coarse for the by-id targets (p50
 * ≤ 60 µs). Takes the same spec as bench/load on stdin and prints the same JSON line
 * (latencies in ms, fractional).
 *
 *   echo '{"url":"http://127.0.0.1:8080","paths":["/v1/foods/x"],"connections":1,"seconds":5}' | node dist/bench/latency.js
 */
import { connect, type Socket } from 'node:net';
import { readSpec, type LoadResult } from './load-spec.js';

const HEADER_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('0\r\n\r\n');

/** Resolves with the status code once the whole response (Content-Length or chunked) has arrived. */
function response(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const headerEnd = buffered.indexOf(HEADER_END);
      if (headerEnd === -1) return;
      const head = buffered.subarray(0, headerEnd).toString('latin1');
      const status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      // Chunked: the body ends with the zero-length chunk (one request at a time: nothing follows it).
      const complete = length
        ? buffered.length >= headerEnd + 4 + Number(length[1])
        : buffered.length >= headerEnd + 4 + LAST_CHUNK.length && buffered.subarray(buffered.length - LAST_CHUNK.length).equals(LAST_CHUNK);
      if (!complete) return;
      socket.off('data', onData);
      socket.off('error', reject);
      resolve(status);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

const spec = await readSpec();
const url = new URL(spec.url);
const socket = connect(Number(url.port), url.hostname);
socket.setNoDelay(true);
await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
const headers = Object.entries({ host: url.host, ...spec.headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
const method = spec.method ?? 'GET';
const requests = spec.paths.map((path, i) => {
  const body = spec.bodies?.[i];
  const extra = body === undefined ? '' : `content-length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${method} ${path} HTTP/1.1\r\n${headers}${extra}\r\n${body ?? ''}`);
});

const times: number[] = [];
let non2xx = 0;
const end = performance.now() + spec.seconds * 1000;
for (let i = 0; performance.now() < end; i++) {
  const done = response(socket);
  const started = process.hrtime.bigint();
  socket.write(requests[i % requests.length]!);
  const status = await done;
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
  if (status < 200 || status >= 300) non2xx++;
}
socket.destroy();
times.sort((a, b) => a - b);
const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
const out: LoadResult = {
  requests: times.length,
  rps: times.length / spec.seconds,
  p50: at(0.5),
  p99: at(0.99),
  max: times[times.length - 1] ?? 0,
  errors: 0,
  non2xx,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
