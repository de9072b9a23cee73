import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errors } from '../errors.js';

/**
 * What the HTTP layer below the routes decides, answered with the contract's error body
 * (docs/security.md, "Where Node decides"). Access is never decided here: a request that
 * reaches a route meets that route's own hooks, whatever spelling of the URL got it there.
 */

/** Longest request URI accepted (contract C3: every URL up to 64 KiB). */
export const MAX_URI_BYTES = 64 * 1024;
/** Node refuses longer heads itself (HPE_HEADER_OVERFLOW, answered 431 below). */
export const MAX_HEAD_BYTES = 1024 * 1024;

const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * The URL with every percent-escape that cannot be decoded taken literally (`%FF` → `%25FF`),
 * so that the router, which decodes the path, routes it rather than refusing it as a bad URL
 * before any route's hooks ran (`/v1/foods/%FF` is then the food whose id is `%FF`: 401 without
 * a token, 404 with one). A run of escapes that is not valid UTF-8 is taken literally as a
 * whole; valid escapes, and everything after `?` or `#`, are left as they are.
 */
export function literalBadEscapes(url: string): string {
  const first = url.indexOf('%');
  if (first === -1) return url;
  let end = url.length;
  for (const delimiter of ['?', '#']) {
    const at = url.indexOf(delimiter);
    if (at !== -1 && at < end) end = at;
  }
  if (first >= end) return url;
  let out = '';
  let i = 0;
  while (i < end) {
    if (url[i] !== '%') {
      out += url[i++];
      continue;
    }
    let run = i;
    while (run < end && url[run] === '%' && HEX.test(url.slice(run + 1, run + 3))) run += 3;
    if (run === i) {
      out += '%25'; // a `%` without two hex digits
      i++;
      continue;
    }
    const escapes = url.slice(i, run);
    let valid = true;
    try {
      decodeURIComponent(escapes);
    } catch {
      valid = false;
    }
    out += valid ? escapes : escapes.replaceAll('%', '%25');
    i = run;
  }
  return out + url.slice(end);
}

/** Requests whose `Expect` Node could not meet (anything but 100-continue): refused with 417. */
const unmetExpectation = new WeakSet<IncomingMessage>();

/** Responses still to be sent on each connection, oldest first (pipelined requests queue up). */
const pendingResponses = new WeakMap<Socket, Set<ServerResponse>>();
/** Connections whose malformed bytes have been answered: Node reports a broken parser only once to us. */
const answered = new WeakSet<Socket>();

/**
 * Node's own answers made the contract's: a request without Host (HTTP/1.1) and an `Expect`
 * other than 100-continue reach the app and are refused with a body; a URI over 64 KiB is 414.
 * These come before authentication: they say what is wrong with the request's form, and
 * nothing about any resource.
 */
export function installFraming(app: FastifyInstance): void {
  const server: Server = app.server;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let pending = pendingResponses.get(request.socket);
    if (!pending) pendingResponses.set(request.socket, (pending = new Set()));
    pending.add(response);
    response.once('close', () => pending.delete(response));
  });
  // Without a listener Node answers 417 with an empty body; with one, the request is ours.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    unmetExpectation.add(request);
    server.emit('request', request, response);
  });
  // CONNECT never reaches the router (its target names a host, not a path); without a
  // listener Node would drop the connection without a word.
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    socket.end(rawResponse(errors.badRequest('CONNECT is not supported: this server is not a proxy')));
  });
  app.addHook('onRequest', (request, _reply, done) => {
    // Node gives the request target one character per byte.
    if (request.originalUrl.length > MAX_URI_BYTES) return done(errors.uriTooLong(MAX_URI_BYTES));
    // Node's parser lets through any target that begins with `*`, and the router reads the rest
    // as a path (`*v1/foods` as /v1/foods, `*` as /): the asterisk-form is `OPTIONS *` alone (RFC 9112, 3.2.4).
    if (request.originalUrl.startsWith('*') && !(request.originalUrl === '*' && request.method === 'OPTIONS')) {
      return done(errors.badRequest(`The request target is not a valid URL: '*' is the target of OPTIONS alone`));
    }
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return done(errors.badRequest('An HTTP/1.1 request needs a Host header'));
    }
    if (unmetExpectation.has(request.raw)) return done(errors.expectationFailed());
    done();
  });
}

/** True when requests that came after this response's, on the same connection, wait for answers (pipelining). */
export function answersQueuedBehind(response: ServerResponse): boolean {
  let last: ServerResponse | undefined;
  for (const pending of pendingResponses.get(response.req.socket) ?? []) last = pending;
  return last !== undefined && last !== response;
}

/** Fastify's own router errors (`frameworkErrors`): a URL it cannot route, a parameter past 64 KiB. */
export function frameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const api = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? errors.uriTooLong(MAX_URI_BYTES)
    : errors.badRequest('The request target is not a valid URL');
  void reply.code(api.status).type('application/json; charset=utf-8').send(api.body());
}

function rawResponse(api: ApiError): string {
  const body = JSON.stringify(api.body());
  return `HTTP/1.1 ${api.status} ${api.message}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Bytes Node's parser refuses (`clientError`): answered with the contract's body, after the
 * responses of the requests that came before them on the same connection, then closed.
 */
export function clientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) {
    socket.destroy();
    return;
  }
  const api = error.code === 'HPE_HEADER_OVERFLOW'
    ? errors.headersTooLarge(MAX_HEAD_BYTES)
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? errors.requestTimeout()
      : errors.badRequest('Malformed HTTP request');
  const pending = [...(pendingResponses.get(socket) ?? [])];
  const answer = (): void => {
    if (socket.writable) socket.end(rawResponse(api));
    else socket.destroy();
  };
  if (pending.length === 0) return answer();
  if (pending.some((response) => !response.req.complete)) {
    // The bad bytes are inside a request still being read: that request cannot be answered
    // properly. As Node does, answer only if no response has begun on the connection.
    if (pending.every((response) => !response.headersSent)) socket.end(rawResponse(api));
    else socket.destroy();
    return;
  }
  // Valid requests before the bad bytes keep their answers: the error goes after them.
  let left = pending.length;
  for (const response of pending) {
    response.once('close', () => {
      if (--left === 0) answer();
    });
  }
}
