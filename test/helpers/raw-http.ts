import { connect } from 'node:net';

/** One HTTP/1.1 response as it came over the wire. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case; a repeated header keeps its values joined by ', '. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  /** The body's bytes as sent (compressed when Content-Encoding says so). */
  readonly bytes: Buffer;
}

/** What a connection answered to bytes written as they are, until the server closed it. */
export interface RawExchange {
  readonly responses: readonly RawResponse[];
  /** Bytes after the last complete response (a truncated answer). */
  readonly rest: string;
  /** How the connection ended: closed by the server, reset, or still open when the wait ran out. */
  readonly ended: 'closed' | 'reset' | 'timeout';
}

/**
 * Parses the responses in `data`, in order; `methods` are the requests' methods, so that the
 * answer to a HEAD is known to have no body. Interim (1xx) responses are skipped.
 */
export function parseResponses(data: Buffer, methods: readonly string[]): { responses: RawResponse[]; rest: string } {
  const responses: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const lines = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
    if (!Number.isInteger(status)) break;
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    let bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      at = bodyStart;
      continue;
    }
    const method = methods[responses.length] ?? 'GET';
    let body: Buffer;
    if (method === 'HEAD' || status === 204 || status === 304) {
      body = Buffer.alloc(0);
    } else if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
      const chunks: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = data.indexOf('\r\n', bodyStart);
        if (lineEnd === -1) break;
        const size = parseInt(data.subarray(bodyStart, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) break;
        if (size === 0) {
          const trailerEnd = data.indexOf('\r\n\r\n', lineEnd);
          if (trailerEnd === -1) break;
          bodyStart = trailerEnd + 4;
          complete = true;
          break;
        }
        if (data.length < lineEnd + 2 + size + 2) break;
        chunks.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      body = Buffer.concat(chunks);
    } else {
      const length = Number(headers.get('content-length') ?? 0);
      if (data.length < bodyStart + length) break;
      body = data.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    responses.push({ status, headers, body: body.toString('utf8'), bytes: body });
    at = bodyStart;
  }
  return { responses, rest: data.subarray(at).toString('latin1') };
}

/**
 * Writes `request` (one or several pipelined requests, any bytes) to host:port and collects
 * what comes back until the server closes the connection, or `timeoutMs`.
 */
export function exchange(
  port: number, request: string | Buffer, methods: readonly string[], options: { host?: string; timeoutMs?: number } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: options.host ?? '127.0.0.1' });
    const chunks: Buffer[] = [];
    let ended: RawExchange['ended'] | undefined;
    const finish = (how: RawExchange['ended']): void => {
      if (ended !== undefined) return;
      ended = how;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponses(Buffer.concat(chunks), methods), ended: how });
    };
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs ?? 10_000);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('error', () => finish('reset'));
  });
}

/** A request as written on the wire, printable in a failure message (CR and LF made visible). */
export function printable(request: string): string {
  return JSON.stringify(request.length > 2000 ? `${request.slice(0, 2000)}… (${request.length} bytes)` : request);
}
