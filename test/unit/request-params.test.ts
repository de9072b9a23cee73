import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors.js';
import { parseClassifications, parseIdFilter, parseIdList, ListSyntaxError } from '../../src/query/id-lists.js';
import { brandListRequest, categoryListRequest, foodListRequest, tagListRequest } from '../../src/query/requests.js';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

function rejects(run: () => unknown, details: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 400);
    assert.equal(error.message, 'Invalid parameter');
    assert.equal(error.details, details);
    return true;
  });
}

describe('id lists', () => {
  test('single-id inversion: plain ids include, ! ids exclude', () => {
    assert.deepEqual(parseIdFilter(`${A},!${B}`), { include: [A], exclude: [B] });
  });

  test('whole-list inversion: a leading ! inverts every id', () => {
    assert.deepEqual(parseIdList(`!${A},${B}`), { values: [A, B], inverted: true });
    assert.deepEqual(parseIdList(`${A.toUpperCase()}`), { values: [A], inverted: false });
  });

  test('a list that is only ! is an error', () => {
    assert.throws(() => parseIdList('!'), ListSyntaxError);
  });

  test('a value that is not a uuid is an error naming it', () => {
    assert.throws(() => parseIdFilter('nope'), /'nope' is not a uuid/);
  });

  test('a list has no length limit of its own (the URL bounds it)', () => {
    const ids = (n: number): string => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`).join(',');
    assert.equal(parseIdList(ids(1800)).values.length, 1800);
    assert.equal(parseIdFilter(ids(1800)).include.length, 1800);
  });
});

describe('classifications', () => {
  test('quoted values keep commas and \\" is a literal quote', () => {
    assert.deepEqual(parseClassifications('"Cheese, hard",Milk'), { values: ['Cheese, hard', 'Milk'], inverted: false });
    assert.deepEqual(parseClassifications('"say \\"cheese\\"", x'), { values: ['say "cheese"', 'x'], inverted: false });
  });

  test('spaces around values are trimmed and empty items ignored', () => {
    assert.deepEqual(parseClassifications('  Milk , ,"  Cheese "  ,'), { values: ['Milk', 'Cheese'], inverted: false });
  });

  test('a leading ! inverts the list', () => {
    assert.deepEqual(parseClassifications('!"A, b",C'), { values: ['A, b', 'C'], inverted: true });
  });

  test('an unterminated quote is an error', () => {
    assert.throws(() => parseClassifications('"unterminated'), /unterminated quote/);
  });
});

describe('collection parameters', () => {
  test('defaults: limit 20, offset 0, name order without a query, rank order with one', () => {
    const plain = foodListRequest({});
    assert.equal(plain.query.limit, 20);
    assert.equal(plain.query.offset, 0);
    assert.deepEqual(plain.query.order, { field: 'name', direction: 'asc' });
    const searched = foodListRequest({ query: 'cheese' });
    assert.deepEqual(searched.query.order, { field: 'rank', direction: 'asc' });
    assert.deepEqual(searched.query.match, { query: 'cheese', type: 'fts' });
  });

  test('a blank query is the same as none', () => {
    assert.equal(foodListRequest({ query: '   ' }).query.match, undefined);
  });

  test('limit accepts only the listed sizes', () => {
    for (const ok of ['1', '5', '10', '20', '30', '50', '100']) assert.equal(foodListRequest({ limit: ok }).query.limit, Number(ok));
    for (const bad of ['0', '2', '101', 'abc', '', '20.0', '-5', '1e1']) {
      rejects(() => foodListRequest({ limit: bad }), "Parameter 'limit': must be one of 1, 5, 10, 20, 30, 50, 100");
    }
  });

  test('offset is decimal digits only, at most 2147483647', () => {
    assert.equal(foodListRequest({ offset: '007' }).query.offset, 7);
    assert.equal(foodListRequest({ offset: '2147483647' }).query.offset, 2147483647);
    for (const bad of ['-1', '1e3', '1.5', '1e309', '2147483648', 'x', '']) {
      rejects(() => foodListRequest({ offset: bad }), "Parameter 'offset': must be a whole number from 0 to 2147483647");
    }
  });

  test('enumerated parameters name what is allowed', () => {
    rejects(() => foodListRequest({ region: 'eu' }), "Parameter 'region': must be 'au' or 'us'");
    rejects(() => foodListRequest({ 'query-type': 'fuzzy' }), "Parameter 'query-type': must be 'fts' or 'prefix'");
    rejects(() => foodListRequest({ grouping: 'tag' }), "Parameter 'grouping': must be 'brand' or 'classification'");
    rejects(() => foodListRequest({ order: 'name:sideways' }),
      "Parameter 'order': must be 'rank' or 'name', optionally followed by ':asc' or ':desc'");
    rejects(() => foodListRequest({ 'grouping-order': 'size' }),
      "Parameter 'grouping-order': must be 'rank' or 'name', optionally followed by ':asc' or ':desc'");
    rejects(() => foodListRequest({ 'grouping-limit': '0' }), "Parameter 'grouping-limit': must be a whole number from 1 to 2147483647");
    rejects(() => categoryListRequest({ 'is-leaf': 'yes' }), "Parameter 'is-leaf': must be 'true' or 'false'");
    rejects(() => brandListRequest({ order: 'rank:asc' }), "Parameter 'order': must be 'asc', 'desc', 'name:asc' or 'name:desc'");
  });

  test('is-leaf is case-insensitive', () => {
    assert.equal(categoryListRequest({ 'is-leaf': 'TRUE' }).query.isLeaf, true);
    assert.equal(categoryListRequest({ 'is-leaf': 'False' }).query.isLeaf, false);
  });

  test('order on brands, categories and tags takes asc, desc, name:asc, name:desc', () => {
    assert.equal(brandListRequest({ order: 'desc' }).query.direction, 'desc');
    assert.equal(tagListRequest({ order: 'name:desc' }).query.direction, 'desc');
    assert.equal(categoryListRequest({}).query.direction, 'asc');
  });

  test('brand is an alias of brands on /foods; both together is a 400', () => {
    assert.deepEqual(foodListRequest({ brand: A }).query.brands, { include: [A], exclude: [] });
    rejects(() => foodListRequest({ brand: A, brands: B }), "Parameter 'brand': give either 'brands' or 'brand', not both");
  });

  test('a repeated parameter is a 400 naming it', () => {
    rejects(() => foodListRequest({ limit: ['5', '10'] }), "Parameter 'limit': given more than once");
  });

  test('invalid values are 400 even where they would have no effect', () => {
    rejects(() => foodListRequest({ 'query-type': 'fuzzy' }), "Parameter 'query-type': must be 'fts' or 'prefix'");
    rejects(() => foodListRequest({ 'grouping-order': 'x' }),
      "Parameter 'grouping-order': must be 'rank' or 'name', optionally followed by ':asc' or ':desc'");
  });

  test('unknown parameters are ignored', () => {
    assert.equal(foodListRequest({ colour: 'red' }).query.limit, 20);
  });

  test('malformed id lists name the parameter', () => {
    rejects(() => foodListRequest({ categories: '!' }), "Parameter 'categories': '!' must be followed by at least one id");
    rejects(() => foodListRequest({ brands: 'abc' }), "Parameter 'brands': 'abc' is not a uuid");
    rejects(() => foodListRequest({ classifications: '"unterminated' }), "Parameter 'classifications': unterminated quote");
  });

  test('grouping defaults: rank order with a query, name order without', () => {
    assert.deepEqual(foodListRequest({ grouping: 'brand', query: 'x' }).query.grouping, { by: 'brand', order: { field: 'rank', direction: 'asc' } });
    assert.deepEqual(foodListRequest({ grouping: 'classification', 'grouping-limit': '3' }).query.grouping,
      { by: 'classification', order: { field: 'name', direction: 'asc' }, limit: 3 });
  });
});
