import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { fixtureServer } from '../helpers/fixture-server.js';
import { soapRequests, type SoapRequest } from '../helpers/hostile-envelopes.js';
import { exchange, printable, type RawResponse } from '../helpers/raw-http.js';
import { TEST_TOKEN } from '../helpers/server.js';

/**
 * The SOAP counterpart of hostile-http.test.ts: generated envelopes, valid and broken, posted
 * as raw HTTP to the real server, and the invariants of contract C6 and soap-interop.md checked
 * on every answer. FC_SEED and FC_RUNS as there.
 */
const fixture = fixtureServer();
const RUNS = Number(process.env['FC_RUNS'] ?? 800);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);
const INTERNALS = /node_modules|\/work\/|\/tmp\/|\bat [\w.<>]+ \(|SQLITE|SELECT |TypeError|ReferenceError|Cannot read prop|FST_|statusCode|\bundefined\b(?! entity)|\[object /;

function wireOf(request: SoapRequest): string {
  const length = Buffer.byteLength(request.body);
  const type = request.contentType === undefined ? '' : `Content-Type: ${request.contentType}\r\n`;
  return `POST /soap/1.2 HTTP/1.1\r\nHost: food.example\r\n${type}Content-Length: ${length}\r\nConnection: close\r\n\r\n${request.body}`;
}

function wellFormed(xml: string): boolean {
  const parser = new SaxesParser({ xmlns: true });
  let ok = true;
  parser.on('error', () => {
    ok = false;
  });
  try {
    parser.write(xml).close();
  } catch {
    return false;
  }
  return ok;
}

function violations(request: SoapRequest, response: RawResponse | undefined): string[] {
  if (response === undefined) return ['no answer at all'];
  const found: string[] = [];
  const type = response.headers.get('content-type') ?? '';
  const fault = /<env:Fault><env:Code><env:Value>(env:[A-Za-z]+)<\/env:Value>/.exec(response.body)?.[1];
  if (INTERNALS.test(response.body)) found.push('internals in the body');
  if (!wellFormed(response.body)) found.push('a body that is not well-formed XML');
  switch (response.status) {
    case 200:
      if (!request.validDevkey) found.push('an answer without a valid devkey');
      if (!request.wellFormedRequest) found.push('an answer to a request that breaks SOAP 1.2 or the WSDL');
      if (!/<fs:(foodSearch|getFood)Response>/.test(response.body)) found.push('a 200 that is not an operation response');
      if (!type.startsWith('application/soap+xml')) found.push(`a response as ${type}`);
      break;
    case 400:
      if (fault !== 'env:Sender') found.push(`a 400 carrying ${fault ?? 'no fault'}`);
      if (!type.startsWith('application/soap+xml')) found.push(`a fault as ${type}`);
      if (!/<env:Text xml:lang="en">[^<]+<\/env:Text>/.test(response.body)) found.push('a fault without an xml:lang Reason');
      break;
    case 500:
      // SOAP 1.2 says 500 for every fault but Sender: a 1.1 envelope's VersionMismatch, MustUnderstand.
      if (fault !== 'env:MustUnderstand' && !response.body.includes('<faultcode>s:VersionMismatch</faultcode>')) {
        found.push(`a 500 carrying ${fault ?? 'no fault'} (a failure of ours)`);
      }
      break;
    default:
      found.push(`status ${response.status}`);
  }
  return found;
}

describe('hostile SOAP envelopes (generative)', () => {
  test(`${RUNS} generated envelopes keep the SOAP contract's invariants`, async () => {
    const port = Number(new URL(fixture.server.url).port);
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(soapRequests(TEST_TOKEN), async (request) => {
        const wire = wireOf(request);
        const { responses, ended } = await exchange(port, wire, ['POST'], { timeoutMs: 15_000 });
        const response = responses[0];
        answered++;
        const found = violations(request, response);
        if (found.length > 0) {
          throw new Error(`${found.join('; ')}\nrequest: ${printable(wire)}\nanswer (${ended}): ${response?.status ?? '-'} ${response?.body.slice(0, 600) ?? ''}`);
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), includeErrorInReport: true },
    );
    assert.equal(answered >= RUNS, true);
  });
});
