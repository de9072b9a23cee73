import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { basic, TEST_TOKEN } from '../helpers/server.js';
import { IDS } from '../helpers/fixture-catalog.js';
import { fixtureServer } from '../helpers/fixture-server.js';
import { forEachStore } from '../helpers/stores.js';
import { exchange, printable, type RawResponse } from '../helpers/raw-http.js';

/**
 * The defects of issue 22, each through the real server on a real port, as raw HTTP: the
 * request target goes on the wire exactly as written (fetch and curl normalise it).
 */
forEachStore((kind) => {
  const fixture = fixtureServer(kind);
  const port = (): number => Number(new URL(fixture.server.url).port);

  const UNAUTHORIZED = { code: 401, message: 'Not Authorized' };

  interface Sent {
    readonly method?: string;
    readonly target: string;
    readonly token?: boolean;
    readonly headers?: readonly string[];
    readonly body?: string;
  }

  function wire(r: Sent): string {
    const headers = ['Host: test', ...(r.token ? [`Authorization: ${basic(TEST_TOKEN)}`] : []), ...(r.headers ?? [])];
    if (r.body !== undefined) headers.push(`Content-Length: ${Buffer.byteLength(r.body)}`);
    return `${r.method ?? 'GET'} ${r.target} HTTP/1.1\r\n${headers.join('\r\n')}\r\nConnection: close\r\n\r\n${r.body ?? ''}`;
  }

  async function send(r: Sent): Promise<RawResponse> {
    const request = wire(r);
    const { responses } = await exchange(port(), request, [r.method ?? 'GET']);
    assert.equal(responses.length, 1, `one answer to ${printable(request)}`);
    return responses[0]!;
  }

  const json = (response: RawResponse): unknown => JSON.parse(response.body);

  /** Never Fastify's own error body, never an empty one: exactly the contract's members. */
  function assertContractError(response: RawResponse, status: number, what: string): void {
    assert.equal(response.status, status, `${what}: ${response.body}`);
    const body = json(response) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), status === 401 ? ['code', 'message'] : ['code', 'message', 'details'], what);
    assert.equal(body['code'], status, what);
  }

  describe('the /v1 interface whatever spelling of the URL reached it', () => {
    const spellings = [
      '/%761/foods?limit=1',
      `/v%31/foods/${IDS.sharp}`,
      '/%76%31/brands?limit=1',
      'http://x/v1/brands?limit=1',
      'HTTP://food.example:80/v%31/tags',
      `https://x/v1/foods/${IDS.sharp}`,
      '/v1#/foods',
      '/v1/foods#fragment',
      '/v1/../v1/foods',
      '/v1/./foods',
      '/v1/foods/..',
      '/v1/%2e%2e/v1/foods',
      `/v1/foods/${IDS.sharp.toUpperCase()}`,
    ];

    test('without a token every spelling that reaches /v1 is 401 and carries no data', async () => {
      for (const target of spellings) {
        const response = await send({ target });
        assertContractError(response, 401, target);
        assert.deepEqual(json(response), UNAUTHORIZED);
        assert.equal(response.headers.get('www-authenticate'), 'Basic realm="foodlookup"');
      }
    });

    test('with a token the same spellings reach the data (so the 401s above were /v1 deciding)', async () => {
      for (const target of ['/%761/foods?limit=1', `/v%31/foods/${IDS.sharp}`, 'http://x/v1/brands?limit=1', 'HTTP://food.example:80/v%31/tags']) {
        const response = await send({ target, token: true });
        assert.equal(response.status, 200, `${target}: ${response.body}`);
      }
      assert.deepEqual(json(await send({ target: '/v1#/foods', token: true })), { code: 404, message: 'Not Found', details: 'Path: /v1#/foods' });
    });

    test('spellings the router does not send to /v1 get no data either: the contract 404, with or without a token', async () => {
      for (const target of ['/V1/foods', '/%561/foods', '//v1/foods', '/x/../v1/foods', '/v1%2Ffoods']) {
        for (const token of [false, true]) {
          const response = await send({ target, token });
          assertContractError(response, 404, target);
          assert.deepEqual(json(response), { code: 404, message: 'Not Found', details: `Path: ${target}` });
        }
      }
    });

    test('every method on every /v1 route, and on /v1 paths with no route, is 401 first', async () => {
      for (const target of ['/v1/foods', `/v1/foods/${IDS.sharp}`, '/v1/brands', `/v1/categories/${IDS.cheese}`, '/v1/tags', '/v1', '/v1/nowhere']) {
        for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'MKCOL', 'M-SEARCH']) {
          const response = await send({ method, target, body: '{"x":1}', headers: ['Content-Type: application/json'] });
          assertContractError(response, 401, `${method} ${target}`);
        }
      }
    });
  });

  describe('router errors go through authentication and answer with the contract body', () => {
    test('an id that is not valid percent-encoding: 401 without a token, then Food not found', async () => {
      assertContractError(await send({ target: '/v1/foods/%FF' }), 401, '%FF');
      assert.deepEqual(json(await send({ target: '/v1/foods/%FF', token: true })), { code: 404, message: 'Food not found', details: 'id: %FF' });
      assert.deepEqual(json(await send({ target: '/v1/brands/%E0%A4%A', token: true })), { code: 404, message: 'Brand not found', details: 'id: %E0%A4%A' });
      assert.deepEqual(json(await send({ target: '/v1/tags/%', token: true })), { code: 404, message: 'Tag not found', details: 'id: %' });
    });

    test('an id over 1,000 characters is an id like any other', async () => {
      const id = 'a'.repeat(5000);
      assertContractError(await send({ target: `/v1/foods/${id}` }), 401, 'long id');
      assert.deepEqual(json(await send({ target: `/v1/categories/${id}`, token: true })), { code: 404, message: 'Category not found', details: `id: ${id}` });
    });

    test('outside /v1 a bad escape is a 404, and a target no router can read a 400, both in the contract body', async () => {
      assert.deepEqual(json(await send({ target: '/nowhere%FF' })), { code: 404, message: 'Not Found', details: 'Path: /nowhere%FF' });
      const unreadable = await send({ target: 'http:///v1/foods' });
      assertContractError(unreadable, 400, 'http:///v1/foods');
      assert.doesNotMatch(unreadable.body, /FST_|statusCode|"error"/);
    });

    test("a target that begins with '*' is a 400 but for OPTIONS *, never a path the router reads from its second character", async () => {
      for (const target of ['*v1/foods?limit=1', '*', '*healthz', '*/v1/foods', '*openapi.json']) {
        for (const token of [false, true]) {
          const response = await send({ target, token });
          assertContractError(response, 400, target);
          assert.match((json(response) as { details: string }).details, /OPTIONS alone/);
        }
      }
      // The server as a whole allows no method of its own.
      assert.deepEqual(json(await send({ method: 'OPTIONS', target: '*' })), { code: 405, message: 'Method Not Allowed', details: 'Method: OPTIONS' });
    });
  });

  describe('methods and framing', () => {
    test('any other method on a real route is 405 with Allow, whatever the body', async () => {
      const bodies: [string | undefined, string][] = [
        ['application/json', '{"a":'], ['application/xml', '<a/>'], ['application/x-www-form-urlencoded', 'a=1'],
        ['application/octet-stream', '\u0000\u0001'], ['text/plain', 'hello'], [undefined, 'raw'],
      ];
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'LOCK', 'REPORT']) {
        for (const [type, body] of bodies) {
          const response = await send({ method, target: '/v1/foods', token: true, body, headers: type ? [`Content-Type: ${type}`] : [] });
          assertContractError(response, 405, `${method} ${type}`);
          assert.equal(response.headers.get('allow'), 'GET, HEAD');
          assert.deepEqual(json(response), { code: 405, message: 'Method Not Allowed', details: `Method: ${method}` });
        }
      }
      const health = await send({ method: 'POST', target: '/healthz', body: '{}', headers: ['Content-Type: application/json'] });
      assertContractError(health, 405, 'POST /healthz');
      assert.equal(health.headers.get('allow'), 'GET, HEAD');
      for (const [method, type] of [['PROPFIND', 'application/xml'], ['QUERY', undefined], ['POST', 'not a media type']] as const) {
        assertContractError(await send({ method, target: '/nowhere', body: '<x/>', headers: type ? [`Content-Type: ${type}`] : [] }), 404, `${method} /nowhere`);
        assertContractError(await send({ method, target: '/v1/nowhere', token: true, body: '<x/>', headers: type ? [`Content-Type: ${type}`] : [] }), 404, `${method} /v1/nowhere`);
      }
    });

    test('a request without Host, or with an Expect other than 100-continue, gets a contract body', async () => {
      const noHost = await exchange(port(), `GET /v1/foods HTTP/1.1\r\nAuthorization: ${basic(TEST_TOKEN)}\r\nConnection: close\r\n\r\n`, ['GET']);
      assert.deepEqual(json(noHost.responses[0]!), { code: 400, message: 'Bad Request', details: 'An HTTP/1.1 request needs a Host header' });
      const teapot = await send({ target: '/v1/foods', token: true, headers: ['Expect: teapot'] });
      assert.deepEqual(json(teapot), { code: 417, message: 'Expectation Failed', details: "Only 'Expect: 100-continue' is supported" });
      // HTTP/1.0 has no Host header to require.
      const old = await exchange(port(), `GET /healthz HTTP/1.0\r\n\r\n`, ['GET']);
      assert.equal(old.responses[0]?.status, 200);
    });

    test('a valid pipelined request keeps its answer when a malformed one follows it', async () => {
      const valid = `GET /v1/foods/${IDS.sharp} HTTP/1.1\r\nHost: test\r\nAuthorization: ${basic(TEST_TOKEN)}\r\n\r\n`;
      const alone = await send({ target: `/v1/foods/${IDS.sharp}`, token: true });
      for (const malformed of ['BLAH\r\n\r\n', 'GET / HTTP/9.9\r\n\r\n', 'GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n', `GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n`]) {
        const { responses, rest } = await exchange(port(), valid + valid + malformed, ['GET', 'GET', 'GET']);
        assert.equal(responses.length, 3, `${printable(malformed)}: ${rest}`);
        for (const response of responses.slice(0, 2)) {
          assert.equal(response.status, 200);
          assert.equal(response.body, alone.body);
        }
        assertContractError(responses[2]!, 400, printable(malformed));
      }
    });

    test('CONNECT, which Node never hands to a route, is refused with a contract body', async () => {
      const { responses } = await exchange(port(), 'CONNECT food.example:443 HTTP/1.1\r\nHost: food.example:443\r\n\r\n', ['CONNECT']);
      assertContractError(responses[0]!, 400, 'CONNECT');
    });
  });

  describe('the contract URL limit', () => {
    const uuids = (n: number): string => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');

    test('1,700 uuids in a list (a 63 KiB URL) are accepted', async () => {
      const target = `/v1/foods?brands=${uuids(1700)}`;
      assert.ok(target.length > 61 * 1024 && target.length < 64 * 1024, String(target.length));
      const response = await send({ target, token: true });
      assert.equal(response.status, 200, response.body);
      // The list holds the fixture's four brands (ids …101 to …103, …201): the same foods as naming them alone.
      const named = await send({ target: `/v1/foods?brands=${IDS.acme},${IDS.zebra},${IDS.eclair},${IDS.bush}`, token: true });
      assert.equal(response.body, named.body);
      assert.equal((await send({ target: `/v1/tags?categories=!${uuids(1700)}`, token: true })).status, 200);
    });

    test('a URL of exactly 64 KiB is accepted, one byte more is 414 with the contract body', async () => {
      const base = '/v1/foods?query=cheddar&pad=';
      const exact = base + 'x'.repeat(64 * 1024 - base.length);
      assert.equal((await send({ target: exact, token: true })).status, 200);
      const over = await send({ target: `${exact}x` });
      assertContractError(over, 414, '64 KiB + 1');
      assert.equal((json(over) as { message: string }).message, 'URI Too Long');
    });
  });

  describe('fields naming Object.prototype members', () => {
    const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__'];

    test('are unknown paths on every resource, nested or not', async () => {
      const where = [
        '/v1/foods?fields=%s', `/v1/foods/${IDS.sharp}?fields=%s`, '/v1/brands?fields=%s', `/v1/brands/${IDS.acme}?fields=%s`,
        '/v1/categories?fields=%s', `/v1/categories/${IDS.cheese}?fields=%s`, '/v1/tags?fields=%s', `/v1/tags/${IDS.organic}?fields=%s`,
      ];
      for (const name of names) {
        for (const pattern of where) {
          const target = pattern.replace('%s', encodeURIComponent(name));
          assert.deepEqual(json(await send({ target, token: true })), { code: 400, message: "Unknown path in 'fields'", details: `Path: '${name}'` }, target);
        }
        for (const [target, path] of [
          [`/v1/foods?fields=brand/${name}`, `brand/${name}`],
          [`/v1/foods/${IDS.sharp}?fields=category(hierarchy/${name})`, `category/hierarchy/${name}`],
          [`/v1/foods?fields=nutrients/${name}`, `nutrients/${name}`],
          [`/v1/foods?fields=foods(servings(${name}))`, `foods/servings/${name}`],
          [`/v1/brands?fields=brands/${name}`, `brands/${name}`],
          [`/v1/categories?fields=hierarchy(${name})`, `hierarchy/${name}`],
          [`/v1/foods?fields=${name}(name)`, name],
        ] as const) {
          assert.deepEqual(json(await send({ target: target.replaceAll(name, encodeURIComponent(name)), token: true })),
            { code: 400, message: "Unknown path in 'fields'", details: `Path: '${path}'` }, target);
        }
      }
    });

    test('a barcode is any key, so a barcode named like one is simply absent', async () => {
      const response = await send({ target: `/v1/foods/${IDS.sharp}?fields=upcs/constructor`, token: true });
      assert.deepEqual(json(response), { food: { upcs: {} } });
    });
  });

  describe('command-line words naming Object.prototype members', () => {
    test('are unknown commands and actions, with the usage, never a crash', async () => {
      for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        const command = await runCli([word]);
        assert.equal(command.code, 2, command.stderr);
        assert.ok(command.stderr.startsWith(`foodlookup: unknown command '${word}'`), command.stderr);
        const action = await runCli(['tokens', word]);
        assert.equal(action.code, 2, action.stderr);
        assert.ok(action.stderr.startsWith(`foodlookup tokens: unknown action '${word}'`), action.stderr);
      }
    });
  });
});
