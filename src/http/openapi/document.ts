import { LIMITS } from '../../query/params.js';
import { EXAMPLE_REQUESTS } from './examples.js';
import { SCHEMAS } from './schemas.js';

/**
 * The OpenAPI 3.1 description of the service, served at GET /openapi.json and rendered at
 * /docs and in docs/api.md (scripts/api-docs.ts). The rules of contract.md are written into the
 * parameters' descriptions, where an app developer reads them. Every response the integration
 * tests receive is validated against it, and `npm test` lints it (redocly).
 */
type Json = Record<string, unknown>;

const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

const UUID_LIST = 'Comma-separated uuids (ids compare case-insensitively; a well-formed uuid that matches nothing is not an error).';

const PARAMETERS: Readonly<Record<string, Json>> = {
  limit: {
    name: 'limit', in: 'query', schema: { type: 'integer', enum: [...LIMITS], default: 20 },
    description: `Page size: only ${LIMITS.join(', ')} are accepted (any other value is a 400). Default 20.`,
  },
  offset: {
    name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0 },
    description: 'Zero-based index of the first result: decimal digits only (`-1`, `1e3`, `1.5` are 400). Past the end: an empty page with the true `metadata.total`.',
  },
  query: {
    name: 'query', in: 'query', schema: { type: 'string' }, example: 'cheddar',
    description: 'Text to match (see `query-type`). Blank is the same as none. `fts`: every word must match (name, brand, classification, other names, description for foods; the name elsewhere), case and accents ignored, plurals matched (`apples` = `apple`), typos of 5+ letters corrected when the word matches nothing (`metadata.corrections` says so), synonyms from the synonym list; a word ending in `*` matches as a prefix (`chedd*`). Punctuation and operators are never syntax. At most 32 different words (400 beyond).',
  },
  'query-type': {
    name: 'query-type', in: 'query', schema: { type: 'string', enum: ['fts', 'prefix'], default: 'fts' },
    description: '`fts` (default): full-text search, most relevant first. `prefix`: names beginning with the query, every character literal; a name equal to the query first, then shorter names (autocomplete).',
  },
  region: { name: 'region', in: 'query', schema: { type: 'string', enum: ['au', 'us'] }, description: 'Only records of this region.' },
  fields: {
    name: 'fields', in: 'query', schema: { type: 'string' }, example: 'name,brand/name,nutrients(energy,protein)',
    description: "Partial response: comma-separated selectors. `a` a member; `a/b` a nested member (also inside every element of a list: `servings/name`); `a(b,c)` several nested members; `nutrients/energy`, `upcs/012345678905` select map keys. On foods, `$summary` (revisionId, brand, name, classification) and `$detailed` (revisionId, foodId, brand, tags, name, otherNames, description, classification, note, mass, volume, servings, defaultServing, upcs, nutrients) mix with other selectors. `metadata` always comes in full. An unknown path → 400 `Unknown path in 'fields'` with `details` `Path: '<path>'`; empty parentheses or an empty selector → 400 `Invalid 'fields'`.",
  },
  orderFoods: {
    name: 'order', in: 'query', schema: { type: 'string', pattern: '^(rank|name)(:(asc|desc))?$' }, example: 'name:desc',
    description: '`rank` or `name`, optionally `:asc` (default) or `:desc`. Default `rank:asc` (most relevant first) with a `query`, `name:asc` without; `rank` without a query orders by name. Ties are broken by name, then id, so paging is stable; `desc` is the exact reverse of `asc`.',
  },
  orderNames: {
    name: 'order', in: 'query', schema: { type: 'string', enum: ['asc', 'desc', 'name:asc', 'name:desc'], default: 'asc' },
    description: 'Always in name order (also with a `query`); this picks the direction. `rank` is a 400 here.',
  },
  brandsFoods: {
    name: 'brands', in: 'query', schema: { type: 'string' },
    example: '!72e34d90-9563-4433-8ec4-c51801d06330',
    description: `Brand ids; ${UUID_LIST} A plain id keeps foods of that brand (any of them); an id prefixed \`!\` excludes its foods: \`brands=!<generic id>\` leaves out the generic 'Average All Brands' foods. Also accepted as \`brand\` (not both).`,
  },
  brandFoodsAlias: {
    name: 'brand', in: 'query', schema: { type: 'string' },
    description: 'The same as `brands` (the service description\'s sample requests spell it this way); giving both is a 400.',
  },
  tagsFoods: {
    name: 'tags', in: 'query', schema: { type: 'string' }, example: '7d98a6a3-7ebc-5196-976b-e9a7c68e41f3',
    description: `Tag ids; ${UUID_LIST} Foods carrying every plain tag (AND) and none of the tags prefixed \`!\`.`,
  },
  categoriesList: {
    name: 'categories', in: 'query', schema: { type: 'string' }, example: '81700e36-3ea2-571c-856e-9c7304ebbc4e',
    description: `Category ids; ${UUID_LIST} A non-leaf id stands for every leaf below it. A leading \`!\` inverts the whole list: \`!A,B\` means in neither A nor B.`,
  },
  classifications: {
    name: 'classifications', in: 'query', schema: { type: 'string' }, example: '"Cheese, cheddar",Milk',
    description: 'Classification strings, comma-separated; exact match, case-insensitive, spaces around each trimmed. A value containing a comma must be double-quoted: `"Cheese, cheddar",Milk` (`\\"` inside quotes is a quote; an unterminated quote is a 400). A leading `!` inverts the whole list.',
  },
  grouping: {
    name: 'grouping', in: 'query', schema: { type: 'string', enum: ['brand', 'classification'] },
    description: 'Groups foods by brand or classification: the list stays flat, foods of a group adjacent, and every food carries `grouping` (`{name, id}` for brands, `{name}` for classifications).',
  },
  'grouping-order': {
    name: 'grouping-order', in: 'query', schema: { type: 'string', pattern: '^(rank|name)(:(asc|desc))?$' },
    description: 'Order of the groups: `rank` (the group holding the most relevant food first; default with a `query`) or `name` (default without), `:asc` or `:desc`.',
  },
  'grouping-limit': {
    name: 'grouping-limit', in: 'query', schema: { type: 'integer', minimum: 1 },
    description: 'Keep the first N foods of each group. `metadata.total` counts the foods kept.',
  },
  upcs: {
    name: 'upcs', in: 'query', schema: { type: 'string', pattern: '^\\s*\\d{6,14}\\s*(,\\s*\\d{6,14}\\s*)*$' }, example: '012345678905',
    description: 'Barcode lookup: foods carrying any of these comma-separated barcodes, combinable with every other parameter. EAN-13, UPC-A, UPC-E, EAN-8 and GTIN-14 are normalised (leading zeros, UPC-E expanded, an 11-digit UPC-A without its check digit completed), so `012345678905`, `12345678905`, `0012345678905` and `00012345678905` find the same product. A code that is not 6 to 14 digits is a 400 naming the parameter. Also accepted as `upc` (not both).',
  },
  upcAlias: { name: 'upc', in: 'query', schema: { type: 'string' }, description: 'The same as `upcs`; giving both is a 400.' },
  classificationsOfFoods: {
    name: 'classifications', in: 'query', schema: { type: 'string' },
    description: 'Keep records that have foods with these classifications (quoting as on /foods); a leading `!`: records with foods lacking them.',
  },
  categoriesOfFoods: {
    name: 'categories', in: 'query', schema: { type: 'string' },
    description: `Keep records with foods in these categories; ${UUID_LIST} Non-leaf ids stand for their leaves; a leading \`!\` inverts the whole list.`,
  },
  tagsOfFoods: {
    name: 'tags', in: 'query', schema: { type: 'string' },
    description: `Tag ids; ${UUID_LIST} Records with foods carrying every plain tag and none of the \`!\` ones.`,
  },
  brandsOfFoods: {
    name: 'brands', in: 'query', schema: { type: 'string' },
    description: `Keep records with foods of these brands; ${UUID_LIST} A leading \`!\` inverts the whole list (\`!A,B\`: foods of neither).`,
  },
  parents: {
    name: 'parents', in: 'query', schema: { type: 'string' },
    description: `Keep categories whose parent is listed; ${UUID_LIST} A leading \`!\`: whose parent is not listed (top-level categories pass).`,
  },
  'is-leaf': {
    name: 'is-leaf', in: 'query', schema: { type: 'string', enum: ['true', 'false'] },
    description: 'Only leaf (`true`) or non-leaf (`false`) categories; case-insensitive.',
  },
};

const p = (name: string): Json => ref('parameters', name);
const PAGING = [p('limit'), p('offset')];
const MATCHING = [p('query'), p('query-type')];

const errorResponse = (description: string, example: Json): Json => ({
  description,
  headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
  content: { 'application/json': { schema: ref('schemas', 'Error'), example } },
});

const RESPONSES: Readonly<Record<string, Json>> = {
  BadRequest: errorResponse('Invalid parameter, unknown path in `fields`, or a parameter given twice.', {
    code: 400, message: 'Invalid parameter', details: "Parameter 'limit': must be one of 1, 5, 10, 20, 30, 50, 100",
  }),
  Unauthorized: {
    ...errorResponse('No token, or one that is not accepted (the token is the Basic username; the password is ignored).', { code: 401, message: 'Not Authorized' }),
    headers: { 'WWW-Authenticate': { schema: { type: 'string' }, description: '`Basic realm="foodlookup"`' }, 'X-Request-Id': ref('headers', 'X-Request-Id') },
  },
  Forbidden: errorResponse('The token is locked to other addresses.', { code: 403, message: 'Forbidden', details: 'Address not allowed for this token' }),
  NotFound: errorResponse('No record with this id.', { code: 404, message: 'Food not found', details: 'id: 00000000-0000-4000-8000-000000000000' }),
  UriTooLong: errorResponse('The URI is longer than 64 KiB.', { code: 414, message: 'URI Too Long', details: 'The request URI is longer than 65536 bytes' }),
  QuotaExceeded: {
    ...errorResponse("The token's quota is used up for this window.", { code: 429, message: 'Quota exceeded', details: 'Limit of 1000 requests reached; the window resets in 1200 s' }),
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the window resets.' }, 'X-Request-Id': ref('headers', 'X-Request-Id') },
  },
  ServiceUnavailable: {
    ...errorResponse('The catalogue store (PostgreSQL) cannot be reached: nothing is wrong with the request; send it again after Retry-After.', {
      code: 503, message: 'Service Unavailable', details: 'The catalogue store does not answer; retry in 5 s',
    }),
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before sending the request again.' }, 'X-Request-Id': ref('headers', 'X-Request-Id') },
  },
  InternalError: errorResponse('A failure of ours; the log has the same request id.', {
    code: 500, message: 'Internal Server Error', details: 'Request id: 0b1c6a4e-8d3f-4a57-9b1e-2f4c5d6e7f80',
  }),
};

const SUCCESS_HEADERS = {
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  'Last-Modified': { schema: { type: 'string' }, description: 'When the record (or, for a collection, the catalogue) last changed. Send it back as If-Modified-Since for a 304.' },
  ETag: { schema: { type: 'string' }, description: 'Weak validator; send it back as If-None-Match for a 304.' },
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
};

function ok(description: string, schema: string, example?: unknown): Json {
  return {
    '200': {
      description, headers: SUCCESS_HEADERS,
      content: { 'application/json': { schema: ref('schemas', schema), ...(example !== undefined ? { example } : {}) } },
    },
    '304': { description: 'Not modified since If-Modified-Since / If-None-Match: no body.', headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') } },
  };
}

const ERRORS = {
  '400': ref('responses', 'BadRequest'), '401': ref('responses', 'Unauthorized'), '403': ref('responses', 'Forbidden'),
  '414': ref('responses', 'UriTooLong'), '429': ref('responses', 'QuotaExceeded'), '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
};

function collection(tag: string, summary: string, description: string, schema: string, parameters: readonly Json[], example: unknown, exampleUrl: string): Json {
  return {
    get: {
      tags: [tag], summary, operationId: `list${tag}`, description: `${description}\n\nExample: \`GET /v1${exampleUrl}\``,
      parameters: [...parameters, p('fields'), ...PAGING],
      responses: { ...ok('One page of results.', schema, example), ...ERRORS },
    },
  };
}

function record(tag: string, kind: string, idName: string, schema: string, example: unknown): Json {
  return {
    get: {
      tags: [tag], summary: `One ${kind} by id`, operationId: `get${kind[0]!.toUpperCase()}${kind.slice(1)}`,
      description: `The ${kind} with this id (case-insensitive)${kind === 'food' ? ", or the food whose current revisionId it is" : ''}. \`fields\` selects members.`,
      parameters: [{ name: idName, in: 'path', required: true, schema: { type: 'string' }, description: `The ${kind}'s id (uuid). Anything else is a 404.` }, p('fields')],
      responses: { ...ok(`The ${kind}.`, schema, example), ...ERRORS, '404': ref('responses', 'NotFound') },
    },
  };
}

const DESCRIPTION = `A food nutrition catalogue: foods with their brand, category tree, tags, servings, 22 nutrients and barcodes, in two regions (\`au\`, \`us\`).

**Authentication**: every \`/v1\` request sends an access token as the HTTP Basic username with an empty password (\`curl -u TOKEN: …\`). In "Try it out", press *Authorize* and put the token in *Username*. Get a token with \`npx foodlookup tokens create\` (the first \`npm start\` prints a development token).

**Conventions**: lists are comma-separated; where a parameter says so, a leading \`!\` inverts. Every error has the body \`{code, message, details}\` (\`details\` absent only for 401). Unknown parameters are ignored; a known one given twice is a 400. Every response carries \`X-Request-Id\`. When the catalogue store (PostgreSQL) cannot be reached, a request that needs it is a \`503\` with \`Retry-After\` (SOAP: an \`env:Receiver\` fault with \`Retry-After\`), never a wait of more than 5 s. Responses of 1 KiB or more are gzip- or brotli-compressed when the client sends \`Accept-Encoding\`.

The legacy SOAP 1.2 interface (\`foodSearch\`, \`getFood\`) is at \`POST /soap/1.2\`, its WSDL at \`GET /soap/1.2?wsdl\`.`;

export function openApiDocument(): Json {
  const ex = EXAMPLE_REQUESTS;
  return {
    openapi: '3.1.0',
    info: {
      title: 'foodlookup', version: '1', description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ basicAuth: [] }],
    tags: [
      { name: 'foods', description: 'Search, filter, group, order and page foods; look them up by id or barcode.' },
      { name: 'brands', description: 'Brands, in name order.' },
      { name: 'categories', description: 'The category tree, in name order.' },
      { name: 'tags', description: 'Tags, in name order.' },
      { name: 'service', description: 'Health, readiness and this document: no token needed.' },
    ],
    paths: {
      '/v1/foods': collection('foods', 'Search and list foods',
        'Foods matching every given filter (AND). With `query`, most relevant first; a food whose name alone has every word ranks above one that needs its other fields.',
        'FoodList', [...MATCHING, p('region'), p('brandsFoods'), p('brandFoodsAlias'), p('tagsFoods'), p('categoriesList'), p('classifications'), p('upcs'), p('upcAlias'),
          p('grouping'), p('grouping-order'), p('grouping-limit'), p('orderFoods')], ex.foods.body, ex.foods.path),
      '/v1/foods/{foodId}': record('foods', 'food', 'foodId', 'FoodRecord', ex.food.body),
      '/v1/brands': collection('brands', 'List brands', 'Brands in name order; the filters that speak of foods keep the brands of the foods that pass them all.',
        'BrandList', [...MATCHING, p('region'), p('classificationsOfFoods'), p('categoriesOfFoods'), p('tagsOfFoods'), p('orderNames')], ex.brands.body, ex.brands.path),
      '/v1/brands/{brandId}': record('brands', 'brand', 'brandId', 'BrandRecord', ex.brand.body),
      '/v1/categories': collection('categories', 'List categories', "Categories in name order; the filters that speak of foods keep the foods' own leaf categories.",
        'CategoryList', [...MATCHING, p('region'), p('classificationsOfFoods'), p('brandsOfFoods'), p('tagsOfFoods'), p('parents'), p('is-leaf'), p('orderNames')],
        ex.categories.body, ex.categories.path),
      '/v1/categories/{categoryId}': record('categories', 'category', 'categoryId', 'CategoryRecord', ex.category.body),
      '/v1/tags': collection('tags', 'List tags', 'Tags in name order (no `region`): the union of the tags of the foods that pass the filters.',
        'TagList', [...MATCHING, p('classificationsOfFoods'), p('categoriesOfFoods'), p('brandsOfFoods'), p('orderNames')], ex.tags.body, ex.tags.path),
      '/v1/tags/{tagId}': record('tags', 'tag', 'tagId', 'TagRecord', undefined),
      '/healthz': {
        get: {
          tags: ['service'], summary: 'Liveness', operationId: 'healthz', security: [], description: 'The process answers.',
          responses: { '200': { description: 'Alive.', content: { 'application/json': { schema: ref('schemas', 'Status') } } }, '414': ref('responses', 'UriTooLong') },
        },
      },
      '/readyz': {
        get: {
          tags: ['service'], summary: 'Readiness', operationId: 'readyz', security: [],
          description: 'Ready when the catalogue is loaded and the store answers within 2 s; 503 otherwise and while the server drains. For load balancers.',
          responses: {
            '200': { description: 'Ready.', content: { 'application/json': { schema: ref('schemas', 'Readiness') } } },
            '414': ref('responses', 'UriTooLong'),
            '503': errorResponse('Not ready.', { code: 503, message: 'Service Unavailable', details: 'The catalogue store does not answer' }),
          },
        },
      },
      '/openapi.json': {
        get: {
          tags: ['service'], summary: 'This document', operationId: 'openapi', security: [],
          responses: { '200': { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } }, '414': ref('responses', 'UriTooLong') },
        },
      },
    },
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'The access token as the username, an empty password.' },
      },
      parameters: PARAMETERS,
      schemas: SCHEMAS,
      responses: RESPONSES,
      headers: {
        'X-Request-Id': { schema: { type: 'string' }, description: "The request's id: the caller's X-Request-Id when it is 1–128 of `A-Za-z0-9._:-`, else a new uuid. The log line has the same id." },
        'X-RateLimit-Limit': { schema: { type: 'integer' }, description: "Requests the token may make per window (tokens with a quota)." },
        'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in this window.' },
        'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets.' },
      },
    },
  };
}
