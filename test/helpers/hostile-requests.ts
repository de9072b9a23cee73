import fc from 'fast-check';
import { IDS } from './fixture-catalog.js';

/**
 * Generators of hostile HTTP requests for the generative tests (issue 22): request targets in
 * every spelling (percent-escapes in either case, absolute-form, dot segments, fragments,
 * letter case), methods, headers (Authorization, Host, Expect, conditional ones) and parameter
 * values drawn from the contract's grammar (C3), valid and not.
 */

/** How a request presents credentials, and what the server must make of them. */
export type Credentials = 'valid' | 'invalid' | 'ip-locked';

export interface AuthChoice {
  readonly kind: Credentials;
  /** Authorization header lines (none, one or two). */
  readonly lines: readonly string[];
}

export interface HostileRequest {
  readonly method: string;
  readonly target: string;
  readonly version: '1.1' | '1.0';
  readonly auth: AuthChoice;
  /** Every header line but Authorization and Connection, in order. */
  readonly headers: readonly string[];
  readonly body?: string;
}

/** The tokens the server under test knows. */
export interface KnownTokens {
  /** In FOODLOOKUP_TOKENS. */
  readonly static: string;
  /** Stored, without limits. */
  readonly stored: string;
  /** Stored, accepted only from 203.0.113.0/24 (never the test's address). */
  readonly ipLocked: string;
  /** Stored, then revoked. */
  readonly revoked: string;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** `arb` in one case of `oneIn`, else null (fc.option's `freq` is the other way round: null in one of `freq`). */
export function sometimes<T>(arb: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

/** Every header Authorization variant that matters, with what it must count as. */
export function authChoices(tokens: KnownTokens): fc.Arbitrary<AuthChoice> {
  const valid = (token: string): fc.Arbitrary<AuthChoice> => fc.constantFrom(
    { kind: 'valid', lines: [`Authorization: Basic ${b64(`${token}:`)}`] },
    { kind: 'valid', lines: [`Authorization: Basic ${b64(`${token}:any password`)}`] },
    { kind: 'valid', lines: [`Authorization: basic ${b64(token)}`] },
    { kind: 'valid', lines: [`Authorization: BASIC \t${b64(`${token}:`)} `] },
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<AuthChoice>({ kind: 'invalid', lines: [] }) },
    { weight: 3, arbitrary: valid(tokens.static) },
    { weight: 1, arbitrary: valid(tokens.stored) },
    { weight: 1, arbitrary: fc.constant<AuthChoice>({ kind: 'ip-locked', lines: [`Authorization: Basic ${b64(`${tokens.ipLocked}:`)}`] }) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom(
          `Basic ${b64(`${tokens.revoked}:`)}`, `Basic ${b64('unknown-token:')}`, `Bearer ${tokens.static}`, `Basic ${tokens.static}`,
          'Basic', 'Basic ', 'Basic !!!', `Basic ${b64(':')}`, `Basic ${b64(`:${tokens.static}`)}`, `Basic ${b64(`${tokens.static}x:`)}`,
          `Basic ${b64(` ${tokens.static}:`)}`, `Digest username="${tokens.static}"`, `${tokens.static}`, `Basic ${b64('a'.repeat(5000))}`,
          `Basic ${b64(`${tokens.static.toUpperCase()}:`)}`, `Basic ${b64(`${tokens.static}\u0000:`)}`,
        ),
        fc.string({ maxLength: 40 }).map((s) => `Basic ${b64(s)}`),
      ).map((value): AuthChoice => ({ kind: 'invalid', lines: [`Authorization: ${value}`] })),
    },
  );
}

/** A character as a client might send it: itself, or percent-escaped in either case. */
function spelled(text: string): fc.Arbitrary<string> {
  if (text === '') return fc.constant('');
  return fc.array(fc.constantFrom<'keep' | 'upper' | 'lower'>('keep', 'keep', 'keep', 'upper', 'lower'), { minLength: text.length, maxLength: text.length })
    .map((choices) => [...text].map((ch, i) => {
      if (choices[i] === 'keep' || ch.charCodeAt(0) > 0x7f) return ch;
      const hex = ch.charCodeAt(0).toString(16).padStart(2, '0');
      return `%${choices[i] === 'upper' ? hex.toUpperCase() : hex.toLowerCase()}`;
    }).join(''));
}

const IDS_SEEN = [IDS.sharp, IDS.acme, IDS.cheese, IDS.organic, IDS.brie, IDS.genericUs];

const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('v1', 'foods', 'brands', 'categories', 'tags').chain(spelled) },
  { weight: 2, arbitrary: fc.constantFrom(...IDS_SEEN).chain((id) => fc.constantFrom(id, id.toUpperCase())) },
  { weight: 1, arbitrary: fc.uuid().map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '', '.', '..', '%2e%2e', '%2E', 'V1', 'v2', 'soap', '1.2', 'healthz', 'x', '%', '%FF', '%zz', '%2F', '%2f', '%00', '%C3%A9', 'é',
      'constructor', '__proto__', 'toString', '$summary', ';a=b', '*', '%25', '%%', 'a'.repeat(1500),
    ),
  },
);

const V1 = fc.oneof({ weight: 4, arbitrary: fc.constant('v1') }, { weight: 1, arbitrary: fc.constantFrom('v1', 'V1').chain(spelled) });

/** A real route, spelled in any way: most requests should reach the data, or its refusal. */
const routePath: fc.Arbitrary<string> = fc.tuple(
  V1,
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom('foods', 'brands', 'categories', 'tags') }, { weight: 1, arbitrary: fc.constantFrom('foods', 'brands', 'categories', 'tags').chain(spelled) }),
  sometimes(fc.constantFrom(...IDS_SEEN, IDS.mild, IDS.hard, IDS.zebra, IDS.sharp.toUpperCase(), '00000000-0000-4000-8000-999999999999', 'cheddar'), 2),
).map(([v1, resource, id]) => `/${v1}/${resource}${id === null ? '' : `/${id}`}`);

const pathArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: routePath },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('v1', 'V1', '%761', 'v%31', '%76%31'), fc.array(segment, { maxLength: 3 })).map(([v, rest]) => `/${[v, ...rest].join('/')}`) },
  { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`) },
  { weight: 1, arbitrary: fc.constantFrom('/healthz', '/readyz', '/openapi.json', '/docs', '/explorer.js', '/soap/1.2', '/', '//v1/foods', '/v1/', '/v1', '*', 'v1/foods', '/v1//foods', '/v1/foods/') },
);

const uuidItem: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...IDS_SEEN, IDS.mild, IDS.zebra, IDS.hard, IDS.lowFat),
  fc.uuid().map(String),
  fc.constantFrom('nope', '', ' ', '00000000-0000-4000-8000-00000000060', `${IDS.sharp}x`, 'constructor'),
);

const idList: fc.Arbitrary<string> = fc.tuple(fc.boolean(), fc.array(fc.tuple(fc.boolean(), uuidItem, fc.constantFrom('', ' ')), { maxLength: 5 }))
  .map(([invert, items]) => (invert ? '!' : '') + items.map(([bang, id, pad]) => `${pad}${bang ? '!' : ''}${id}${pad}`).join(','));

const FIELD_NAMES = [
  'name', 'brand', 'category', 'tags', 'servings', 'nutrients', 'upcs', 'foodId', 'revisionId', 'region', 'id', 'hierarchy', 'isLeaf',
  'parent', 'grouping', 'energy', 'fat', 'caffeine', 'quantity', 'scale', 'foods', 'food', 'brands', 'categories', 'metadata', 'total',
  '$summary', '$detailed', 'constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'colour', '012345678905', ' ',
];

const selectors: fc.Arbitrary<string> = fc.letrec<{ list: string; one: string }>((tie) => ({
  one: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...FIELD_NAMES),
    fc.tuple(fc.constantFrom(...FIELD_NAMES), fc.constantFrom(...FIELD_NAMES)).map(([a, b]) => `${a}/${b}`),
    fc.tuple(fc.constantFrom(...FIELD_NAMES), tie('list')).map(([a, inner]) => `${a}(${inner})`),
  ),
  list: fc.array(tie('one'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(',')),
})).list;

const fieldsValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: selectors },
  { weight: 1, arbitrary: fc.constantFrom('', 'name,,brand', 'brand()', 'brand(name', 'name)', '(', '/', 'a//b', 'name/', '((((((((((((((((((((((((((((((((((name') },
);

const classificationsValue: fc.Arbitrary<string> = fc.array(
  fc.oneof(fc.constantFrom('Cheese, cheddar', 'Milk, skim', 'x'), fc.string({ maxLength: 8 })).map((v) => (v.includes(',') ? `"${v.replaceAll('"', '\\"')}"` : v)),
  { maxLength: 3 },
).chain((items) => fc.constantFrom(items.join(','), `!${items.join(',')}`, `"${items.join('')}`, `${items.join(',')},,`));

// A Map: the generator itself names `__proto__` and `constructor` among the parameters.
const PARAMS: ReadonlyMap<string, fc.Arbitrary<string>> = new Map(Object.entries({
  limit: fc.constantFrom('1', '5', '10', '20', '30', '50', '100', '7', '0', '-1', '1e3', '', 'abc', '0100', '20 '),
  offset: fc.oneof(fc.nat({ max: 30 }).map(String), fc.constantFrom('-1', '1e3', '1.5', '1e309', '2147483647', '2147483648', '00012', '', ' 1')),
  region: fc.constantFrom('au', 'us', 'AU', 'xx', ''),
  query: fc.oneof(fc.constantFrom('cheddar', 'chees', 'milk*', '"cheese" OR 1=1', 'c*', '%', '_', '', '  ', 'crème brûlée', 'a'.repeat(300)), fc.string({ maxLength: 20 })),
  'query-type': fc.constantFrom('fts', 'prefix', 'fuzzy', 'FTS', ''),
  order: fc.constantFrom('rank', 'name', 'rank:asc', 'name:desc', 'asc', 'desc', 'rank:up', 'name:', ''),
  grouping: fc.constantFrom('brand', 'classification', 'category', ''),
  'grouping-order': fc.constantFrom('rank', 'name:desc', 'x'),
  'grouping-limit': fc.constantFrom('1', '2', '0', '-1', 'x', '2147483648'),
  'is-leaf': fc.constantFrom('true', 'FALSE', 'yes', ''),
  fields: fieldsValue,
  brands: idList,
  brand: idList,
  tags: idList,
  categories: idList,
  parents: idList,
  classifications: classificationsValue,
  constructor: fc.constantFrom('x', ''),
  toString: fc.constantFrom('x'),
  unknown: fc.string({ maxLength: 6 }),
}).concat([['__proto__', fc.constantFrom('x', '[object]')]]));

const PARAM_NAMES = [...PARAMS.keys()];

/** Most values percent-encoded as clients do; some raw, which may break the request line. */
const queryString: fc.Arbitrary<string> = fc.array(
  fc.tuple(fc.constantFrom(...PARAM_NAMES), fc.integer({ min: 0, max: 9 })).chain(([name, how]) =>
    PARAMS.get(name)!.map((value) => {
      const key = how === 0 ? name.toUpperCase() : name;
      return how <= 7 ? `${key}=${encodeURIComponent(value)}` : `${key}=${value.replaceAll(/[\s#]/g, '+')}`;
    })),
  { maxLength: 4 },
).map((pairs) => pairs.join('&'));

const targetArb: fc.Arbitrary<string> = fc.tuple(
  fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 2, arbitrary: fc.constantFrom('http://food.example', 'HTTP://x:80', 'https://x', 'http://') }),
  pathArb,
  sometimes(queryString, 2),
  sometimes(fc.constantFrom('#', '#/foods', '#x?limit=1', '#%FF'), 6),
).map(([origin, path, query, fragment]) => `${origin}${path}${query === null ? '' : `?${query}`}${fragment ?? ''}`);

const methodArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  {
    weight: 4,
    arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'LOCK', 'MKCOL', 'M-SEARCH', 'PURGE', 'REPORT', 'FOO', 'get'),
  },
);

const headerLines: fc.Arbitrary<string[]> = fc.tuple(
  fc.oneof({ weight: 8, arbitrary: fc.constant(['Host: food.example']) }, { weight: 1, arbitrary: fc.constantFrom([], ['Host:'], ['Host: a', 'Host: b'], ['Host: bad host!']) }),
  sometimes(fc.constantFrom('Expect: 100-continue', 'Expect: teapot', 'Expect: '), 8),
  sometimes(fc.constantFrom(
    'If-Modified-Since: Fri, 31 Dec 2100 23:59:59 GMT', 'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT', 'If-Modified-Since: garbage',
    'If-None-Match: *', 'If-None-Match: W/"x"', 'If-None-Match: ""',
  ), 4),
  sometimes(fc.constantFrom('X-Forwarded-For: 203.0.113.7', 'Accept: application/xml', 'Accept-Encoding: gzip', 'Bad header line', 'X: \u0001', 'Transfer-Encoding: chunked'), 8),
).map(([host, expect, conditional, extra]) => [...host, ...(expect ? [expect] : []), ...(conditional ? [conditional] : []), ...(extra ? [extra] : [])]);

const bodyArb: fc.Arbitrary<{ type?: string; content: string } | null> = sometimes(fc.record({
  type: fc.option(fc.constantFrom('application/json', 'application/xml', 'application/soap+xml', 'text/plain', 'application/x-www-form-urlencoded', 'not a type', 'application/json; charset=bogus'), { nil: undefined }),
  content: fc.constantFrom('{"limit":5}', '{"a":', '<x/>', 'a=1&b=2', '', '\u0000\u0001'),
}), 4);

export function hostileRequests(tokens: KnownTokens): fc.Arbitrary<HostileRequest> {
  return fc.record({
    method: methodArb,
    target: targetArb,
    version: fc.constantFrom<'1.1' | '1.0'>('1.1', '1.1', '1.1', '1.1', '1.0'),
    auth: authChoices(tokens),
    headers: headerLines,
    body: bodyArb,
  }).map(({ body, headers, ...rest }): HostileRequest => {
    const chunked = headers.some((h) => h.startsWith('Transfer-Encoding'));
    if (body === null) return { ...rest, headers: chunked ? headers.filter((h) => !h.startsWith('Transfer-Encoding')) : headers };
    const typed = body.type === undefined ? headers : [...headers, `Content-Type: ${body.type}`];
    return chunked
      ? { ...rest, headers: typed, body: `${Buffer.byteLength(body.content).toString(16)}\r\n${body.content}\r\n0\r\n\r\n` }
      : { ...rest, headers: [...typed, `Content-Length: ${Buffer.byteLength(body.content)}`], body: body.content };
  });
}

/** The request as written on the wire; every request asks to close the connection after it. */
export function wireOf(request: HostileRequest, auth: readonly string[] = request.auth.lines): string {
  return `${request.method} ${request.target} HTTP/${request.version}\r\n${[...request.headers, ...auth, 'Connection: close'].join('\r\n')}\r\n\r\n${request.body ?? ''}`;
}
