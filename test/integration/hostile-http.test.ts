import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { join } from 'node:path';
import fc from 'fast-check';
import { runCli } from '../helpers/cli.js';
import { importedServer } from '../helpers/fixture-server.js';
import { fixturePath } from '../helpers/paths.js';
import { hostileRequests, wireOf, type HostileRequest, type KnownTokens } from '../helpers/hostile-requests.js';
import { exchange, printable, type RawResponse } from '../helpers/raw-http.js';
import { TEST_TOKEN } from '../helpers/server.js';

/**
 * Generative hostile-input test of the JSON interface (issue 22, "Keep them closed"): requests
 * generated from the contract's grammar and beyond it, sent as raw HTTP to the real server on a
 * real port, and the contract's invariants checked on every answer. On a failure fast-check
 * shrinks the request and the error shows it as it went on the wire. FC_SEED=<seed> replays a
 * run; FC_RUNS=<n> sets its length.
 */
const fixture = importedServer('catalog', [fixturePath('catalog.json')]);
const RUNS = Number(process.env['FC_RUNS'] ?? 1500);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);

let tokens: KnownTokens;

async function createToken(db: string, flags: readonly string[]): Promise<{ id: string; token: string }> {
  const result = await runCli(['tokens', 'create', '--db', db, '--json', ...flags]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { id: string; token: string };
}

const STATUSES = new Set([200, 304, 400, 401, 403, 404, 405, 408, 414, 417, 431]);
/** What must never reach a client: stack frames, paths of this machine, SQL, Fastify's own error body. */
const INTERNALS = /node_modules|\/work\/|\/tmp\/|\bat [\w.<>]+ \(|SQLITE|sqlite_|SELECT |TypeError|ReferenceError|RangeError|Cannot read prop|FST_|"statusCode"|"error":/;

function describeAnswer(response: RawResponse | undefined): string {
  if (!response) return '(no answer)';
  return `${response.status} ${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('; ')}\n${response.body.slice(0, 500)}`;
}

async function send(request: HostileRequest, auth?: readonly string[]): Promise<{ response: RawResponse | undefined; wire: string; ended: string; rest: string }> {
  const wire = wireOf(request, auth);
  const { responses, ended, rest } = await exchange(Number(new URL(fixture.server.url).port), wire, [request.method], { timeoutMs: 15_000 });
  return { response: responses[0], wire, ended, rest };
}

/**
 * Answers that carry no catalogue data: the liveness and readiness answers, the WSDL, and the
 * public pages (the explorer at `/`, which an absolute-form target without a path
 * reaches too, the docs page and its assets, the OpenAPI document).
 */
function isPublic(compressed: RawResponse): boolean {
  const response = decoded(compressed);
  const type = response.headers.get('content-type') ?? '';
  return /^\{"status":"ok","store":"(ok|unavailable)"\}$/.test(response.body) || response.body.startsWith('{"status":"ready"') ||
    (type.startsWith('text/xml') && response.body.includes('<wsdl:definitions')) ||
    /^(text\/html|text\/css|text\/javascript|image\/png)/.test(type) ||
    (type.startsWith('application/json') && response.body.startsWith('{"openapi":"3.1'));
}

/** The answer with its body decompressed (a public page is compressed like any other answer). */
function decoded(response: RawResponse): RawResponse {
  const encoding = response.headers.get('content-encoding');
  const inflate = encoding === 'gzip' ? gunzipSync : encoding === 'br' ? brotliDecompressSync : encoding === 'deflate' ? inflateSync : undefined;
  if (!inflate) return response;
  const bytes = inflate(response.bytes);
  return { ...response, bytes, body: bytes.toString('utf8') };
}

/** The contract's invariants on one answer; returns what was violated (empty when none). */
function violations(request: HostileRequest, response: RawResponse | undefined): string[] {
  if (response === undefined) return ['no answer at all (empty reply, reset or hang)'];
  const found: string[] = [];
  if (response.status >= 500) found.push(`a ${response.status}`);
  else if (!STATUSES.has(response.status)) found.push(`an unexpected status ${response.status}`);
  if (INTERNALS.test(response.body)) found.push('internals in the body');
  const type = response.headers.get('content-type') ?? '';
  const hasBody = request.method !== 'HEAD' && response.status !== 304;
  if (response.status >= 400) {
    if (type.startsWith('application/soap+xml')) {
      if (hasBody && !/<env:Fault><env:Code><env:Value>env:Sender<\/env:Value>/.test(response.body)) found.push('a SOAP error that is not a Sender fault');
      if (response.status !== 400) found.push('a SOAP Sender fault without 400');
    } else if (!type.startsWith('application/json')) {
      found.push(`an error that is not JSON (${type || 'no Content-Type'})`);
    } else if (hasBody) {
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(response.body) as Record<string, unknown>;
      } catch {
        found.push('an error body that is not JSON');
      }
      if (body) {
        const members = response.status === 401 ? ['code', 'message'] : ['code', 'message', 'details'];
        if (JSON.stringify(Object.keys(body)) !== JSON.stringify(members)) found.push(`error members ${Object.keys(body).join(',')}, not ${members.join(',')}`);
        if (body['code'] !== response.status) found.push('code differs from the status');
        if (typeof body['message'] !== 'string' || (response.status !== 401 && typeof body['details'] !== 'string')) found.push('message or details not a string');
      }
    }
  }
  if (response.status === 401 && response.headers.get('www-authenticate') !== 'Basic realm="foodlookup"') found.push('401 without WWW-Authenticate');
  if (response.status === 405 && !response.headers.has('allow')) found.push('405 without Allow');
  if (request.auth.kind === 'valid' && response.status === 401) found.push('a valid token refused');
  if (request.auth.kind !== 'valid') {
    if (response.status === 304) found.push('a 304 (the record exists) without a valid token');
    if (response.status === 200 && hasBody && !isPublic(response)) found.push('data without a valid token');
  }
  return found;
}

describe('hostile requests to the JSON interface (generative)', () => {
  before(async () => {
    const db = join(fixture.dir, 'catalog.db');
    const stored = await createToken(db, ['--name', 'generative']);
    const ipLocked = await createToken(db, ['--ips', '203.0.113.0/24']);
    const revoked = await createToken(db, []);
    const result = await runCli(['tokens', 'revoke', revoked.id, '--db', db]);
    assert.equal(result.code, 0, result.stderr);
    tokens = { static: TEST_TOKEN, stored: stored.token, ipLocked: ipLocked.token, revoked: revoked.token };
  });

  test(`${RUNS} generated requests keep the contract's invariants`, async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(hostileRequests(tokens), async (request) => {
        const first = await send(request);
        sent++;
        const found = violations(request, first.response);
        const answer = first.response;
        if (answer && request.auth.kind !== 'valid') {
          const refusal = request.auth.kind === 'invalid' ? 401 : 403;
          if (answer.status !== refusal) {
            // Not refused: then the credentials made no difference, so nothing under /v1 answered.
            const withToken = await send(request, [`Authorization: Basic ${Buffer.from(`${TEST_TOKEN}:`).toString('base64')}`]);
            sent++;
            const same = withToken.response !== undefined && withToken.response.status === answer.status && withToken.response.body === answer.body;
            if (!same) found.push(`answered ${answer.status} without a valid token, but ${withToken.response?.status ?? 'nothing'} with one`);
            // A HEAD shows no body: the same request as a GET must carry no data either.
            if (answer.status === 200 && request.method === 'HEAD') {
              const asGet = await send({ ...request, method: 'GET' });
              sent++;
              if (asGet.response?.status === 200 && !isPublic(asGet.response)) found.push('HEAD answered 200 where GET gives data, without a valid token');
            }
          }
        }
        if (found.length > 0) {
          throw new Error(`${found.join('; ')}\nrequest: ${printable(first.wire)}\nanswer: ${describeAnswer(answer)}\nconnection ${first.ended}, unparsed: ${JSON.stringify(first.rest.slice(0, 200))}`);
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), includeErrorInReport: true },
    );
    assert.ok(sent >= RUNS);
  });
});
