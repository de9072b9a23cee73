import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { TEST_TOKEN } from '../helpers/server.js';
import { IDS } from '../helpers/fixture-catalog.js';
import { fixtureServer } from '../helpers/fixture-server.js';
import { forEachStore } from '../helpers/stores.js';
import { envelope, faultOf, post, SOAP12 } from '../helpers/soap.js';

forEachStore((kind) => {
  const fixture = fixtureServer(kind);

  const search = (terms: string, devkey = TEST_TOKEN): string => envelope('foodSearch', { devkey, terms });
  const getFood = (id: string, devkey = TEST_TOKEN): string => envelope('getFood', { devkey, id });

  describe('SOAP: WSDL', () => {
    test('GET ?wsdl serves the WSDL with the address the request came to, no headers needed', async () => {
      for (const query of ['wsdl', 'WSDL', 'Wsdl=']) {
        const res = await fetch(`${fixture.server.url}/soap/1.2?${query}`);
        assert.equal(res.status, 200);
        const text = await res.text();
        assert.match(text, /<wsdl:definitions name="FoodSearch"/);
        assert.match(text, new RegExp(`<soap12:address location="${fixture.server.url}/soap/1.2"/>`));
      }
    });

    test('the address follows the Host header', async () => {
      // fetch may not set Host: a plain node:http request does.
      const text = await new Promise<string>((resolve, reject) => {
        const req = request(`${fixture.server.url}/soap/1.2?wsdl`, { headers: { host: 'food.example:9000' } }, (res) => {
          let data = '';
          res.on('data', (d: Buffer) => (data += d.toString()));
          res.on('end', () => resolve(data));
        });
        req.on('error', reject);
        req.end();
      });
      assert.match(text, /<soap12:address location="http:\/\/food\.example:9000\/soap\/1\.2"\/>/);
    });
  });

  describe('SOAP: operations', () => {
    test('foodSearch: foods whose name holds every word, grouped by their leaf category', async () => {
      const res = await post(fixture.server, search('cheddar CHEESE'));
      assert.equal(res.status, 200);
      assert.match(res.type, /^application\/soap\+xml/);
      assert.match(res.text, new RegExp(`<env:Envelope xmlns:env="${SOAP12}" xmlns:fs="urn:FoodSearch1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`));
      const categories = [...res.text.matchAll(/<fs:categories><fs:name>([^<]*)<\/fs:name>(.*?)<\/fs:categories>/g)];
      assert.deepEqual(categories.map((c) => c[1]), ['Hard cheese']);
      const ids = [...categories[0]![2]!.matchAll(/<fs:id>([^<]*)<\/fs:id>/g)].map((m) => m[1]).sort();
      assert.deepEqual(ids, [IDS.sharp, IDS.mild].sort());
    });

    test('foodSearch: categories ordered by their best food; names only, whole words, diacritics folded', async () => {
      const res = await post(fixture.server, search('cheese'));
      const names = [...res.text.matchAll(/<fs:categories><fs:name>([^<]*)</g)].map((m) => m[1]);
      assert.equal(names.length, 2);
      assert.deepEqual([...names].sort(), ['Hard cheese', 'Soft cheese']);
      assert.doesNotMatch(res.text, /Brie/, 'Brie is a cheese by classification, not by name');
      assert.match((await post(fixture.server, search('creme'))).text, /Crème brûlée/);
      assert.doesNotMatch((await post(fixture.server, search('chedd'))).text, /<fs:categories>/, 'whole words only');
    });

    test('foodSearch: empty, blank, punctuation-only and unmatched terms give no categories', async () => {
      for (const terms of ['', '   ', '&amp;&lt;!?', 'xyzzy']) {
        const res = await post(fixture.server, search(terms));
        assert.equal(res.status, 200);
        assert.match(res.text, /<fs:foodSearchResponse><\/fs:foodSearchResponse>/);
      }
    });

    test('getFood: one servings element per serving, nutrients scaled, calories from kJ, 3 decimals', async () => {
      const res = await post(fixture.server, getFood(IDS.sharp));
      assert.equal(res.status, 200);
      assert.match(res.text, new RegExp(`<fs:food><fs:id>${IDS.sharp}</fs:id><fs:name>Cheddar cheese, sharp</fs:name><fs:servings>`));
      const servings = [...res.text.matchAll(/<fs:servings><fs:name>([^<]*)<\/fs:name><fs:nutrients>(.*?)<\/fs:nutrients><\/fs:servings>/g)];
      assert.deepEqual(servings.map((s) => s[1]), ['100 g', '1 slice', '1 cup, shredded']);
      assert.equal(servings[0]![2], '<fs:calories>402.964</fs:calories><fs:fat>33.1</fs:fat><fs:carbohydrate>1.3</fs:carbohydrate>' +
        '<fs:protein>24.9</fs:protein><fs:fiber xsi:nil="true"/><fs:sugar xsi:nil="true"/><fs:sodium>621</fs:sodium>' +
        '<fs:calcium>721</fs:calcium><fs:satfat>18.9</fs:satfat><fs:cholesterol>105</fs:cholesterol>');
      assert.match(servings[1]![2]!, /^<fs:calories>112\.83<\/fs:calories><fs:fat>9\.268<\/fs:fat><fs:carbohydrate>0\.364<\/fs:carbohydrate><fs:protein>6\.972<\/fs:protein>/);
    });

    test('getFood: a food without nutrients has every element, all nil', async () => {
      const res = await post(fixture.server, getFood(IDS.creme));
      for (const element of ['calories', 'fat', 'carbohydrate', 'protein', 'fiber', 'sugar', 'sodium', 'calcium', 'satfat', 'cholesterol']) {
        assert.match(res.text, new RegExp(`<fs:${element} xsi:nil="true"/>`));
      }
    });

    test('names are XML-escaped', async () => {
      assert.match((await post(fixture.server, getFood(IDS.sharp))).text, /<fs:name>Cheddar cheese, sharp<\/fs:name>/);
      // The fixture's apostrophes and accents travel as text.
      assert.match((await post(fixture.server, search('brulee'))).text, /<fs:name>Crème brûlée<\/fs:name>/);
    });
  });

  describe('SOAP: faults (contract C6)', () => {
    const cases: [string, string, number, string][] = [
      ['missing devkey', envelope('foodSearch', { terms: 'cheese' }), 400, 'Invalid developer key'],
      ['unknown devkey', search('cheese', 'nope'), 400, 'Invalid developer key'],
      ['blank devkey', getFood(IDS.sharp, '  '), 400, 'Invalid developer key'],
      ['unknown id', getFood('00000000-0000-4000-8000-999999999999'), 400, 'Food not found'],
      ['id that is not a uuid', getFood('cheddar'), 400, 'Food not found'],
    ];
    for (const [name, body, status, reason] of cases) {
      test(`${name}: Sender fault '${reason}'`, async () => {
        const res = await post(fixture.server, body);
        assert.equal(res.status, status);
        assert.match(res.type, /^application\/soap\+xml/);
        assert.deepEqual(faultOf(res.text), { code: 'env:Sender', reason });
      });
    }

    test('an unknown id carries the FoodNotFound subcode and detail', async () => {
      const res = await post(fixture.server, getFood('00000000-0000-4000-8000-999999999999'));
      assert.match(res.text, /<env:Subcode><env:Value xmlns:fs="urn:FoodSearch1">fs:FoodNotFound<\/env:Value><\/env:Subcode>/);
      assert.match(res.text, /<env:Detail xmlns:fs="urn:FoodSearch1"><fs:foodNotFound><fs:id>00000000-0000-4000-8000-999999999999<\/fs:id><\/fs:foodNotFound><\/env:Detail>/);
    });

    test('getFood takes the foodId, not a revisionId', async () => {
      const { food } = (await fixture.server.get(`/v1/foods/${IDS.sharp}?fields=revisionId`)).body as { food: { revisionId: string } };
      assert.equal(faultOf((await post(fixture.server, getFood(food.revisionId))).text).reason, 'Food not found');
    });

    test('malformed XML, a wrong root, an unknown operation: Sender faults without internals', async () => {
      const bodies = [
        '<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body>',
        'not xml at all',
        '',
        '<Envelope/>',
        `<env:Envelope xmlns:env="${SOAP12}"><env:Body><f:deleteFood xmlns:f="urn:FoodSearch1"/></env:Body></env:Envelope>`,
        `<env:Envelope xmlns:env="${SOAP12}"><env:Body><foodSearch><devkey>${TEST_TOKEN}</devkey><terms>x</terms></foodSearch></env:Body></env:Envelope>`,
        `<env:Envelope xmlns:env="${SOAP12}"><env:Body><f:getFood xmlns:f="urn:FoodSearch1"><f:devkey>${TEST_TOKEN}</f:devkey></f:getFood></env:Body></env:Envelope>`,
      ];
      for (const body of bodies) {
        const res = await post(fixture.server, body);
        assert.equal(res.status, 400, body);
        const fault = faultOf(res.text);
        assert.equal(fault.code, 'env:Sender', body);
        assert.doesNotMatch(res.text, /at \w+ \(|node_modules|TypeError|stack/);
      }
    });

    test('a SOAP 1.1 envelope gets a SOAP 1.1 VersionMismatch fault with the Upgrade header', async () => {
      const body = `<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="urn:FoodSearch1"><SOAP-ENV:Body><ns1:foodSearch><ns1:devkey>${TEST_TOKEN}</ns1:devkey><ns1:terms>x</ns1:terms></ns1:foodSearch></SOAP-ENV:Body></SOAP-ENV:Envelope>`;
      const res = await fixture.server.fetch('/soap/1.2', { method: 'POST', token: null, headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"urn:FoodSearchAction"' }, body });
      assert.equal(res.status, 500);
      assert.match(res.headers.get('content-type') ?? '', /^text\/xml/);
      const text = await res.text();
      assert.match(text, /<faultcode>s:VersionMismatch<\/faultcode>/);
      assert.match(text, /<env:Upgrade xmlns:env="http:\/\/www\.w3\.org\/2003\/05\/soap-envelope"><env:SupportedEnvelope qname="ns1:Envelope"/);
    });

    test('a mustUnderstand header block is a MustUnderstand fault', async () => {
      const body = `<env:Envelope xmlns:env="${SOAP12}"><env:Header><x:Tx xmlns:x="urn:x" env:mustUnderstand="true"/></env:Header><env:Body><f:foodSearch xmlns:f="urn:FoodSearch1"><f:devkey>${TEST_TOKEN}</f:devkey><f:terms>x</f:terms></f:foodSearch></env:Body></env:Envelope>`;
      const res = await post(fixture.server, body);
      assert.equal(res.status, 500);
      assert.equal(faultOf(res.text).code, 'env:MustUnderstand');
    });
  });

  describe('SOAP: hostile XML', () => {
    test('an external entity (XXE) is refused as a Sender fault and nothing is read', async () => {
      const body = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><env:Envelope xmlns:env="${SOAP12}"><env:Body><f:foodSearch xmlns:f="urn:FoodSearch1"><f:devkey>${TEST_TOKEN}</f:devkey><f:terms>&xxe;</f:terms></f:foodSearch></env:Body></env:Envelope>`;
      const res = await post(fixture.server, body);
      assert.equal(res.status, 400);
      assert.equal(faultOf(res.text).code, 'env:Sender');
      assert.doesNotMatch(res.text, /root:/);
    });

    test('entity expansion (billion laughs) is refused at once', async () => {
      const lol = '<!DOCTYPE lolz [<!ENTITY lol "lol">' + Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') + ']>';
      const started = performance.now();
      const res = await post(fixture.server, `${lol}<env:Envelope xmlns:env="${SOAP12}"><env:Body>&lol9;</env:Body></env:Envelope>`);
      assert.equal(res.status, 400);
      assert.equal(faultOf(res.text).code, 'env:Sender');
      assert.ok(performance.now() - started < 5000);
    });

    test('an undefined entity is malformed', async () => {
      const res = await post(fixture.server, search('&nope;'));
      assert.equal(faultOf(res.text).code, 'env:Sender');
    });

    // SOAP 1.2 Part 2, 7.5.1.2 (soap-interop.md): a Sender fault goes with 400, whatever its cause.
    test('a body over 64 KB is a Sender fault with 400', async () => {
      const res = await post(fixture.server, search('x'.repeat(70 * 1024)));
      assert.equal(res.status, 400);
      assert.equal(faultOf(res.text).code, 'env:Sender');
    });

    test('a body of another media type is a Sender fault with 400, even a valid envelope sent as text/plain', async () => {
      for (const [body, type] of [['{}', 'application/json'], [search('cheddar'), 'text/plain'], [search('cheddar'), 'application/x-www-form-urlencoded']]) {
        const res = await post(fixture.server, body!, type);
        assert.equal(res.status, 400, type);
        assert.equal(faultOf(res.text).code, 'env:Sender');
        assert.match(faultOf(res.text).reason ?? '', /application\/soap\+xml/);
      }
    });

    test('an Envelope with two Bodies, two Headers or a Header after the Body is a Sender fault', async () => {
      const op = `<f:foodSearch xmlns:f="urn:FoodSearch1"><f:devkey>${TEST_TOKEN}</f:devkey><f:terms>cheddar</f:terms></f:foodSearch>`;
      for (const inside of [
        `<env:Body>${op}</env:Body><env:Body>${op}</env:Body>`,
        `<env:Body/><env:Body>${op}</env:Body>`,
        `<env:Header/><env:Header/><env:Body>${op}</env:Body>`,
        `<env:Body>${op}</env:Body><env:Header/>`,
      ]) {
        const res = await post(fixture.server, `<env:Envelope xmlns:env="${SOAP12}">${inside}</env:Envelope>`);
        assert.equal(res.status, 400, inside);
        assert.equal(faultOf(res.text).code, 'env:Sender', inside);
        assert.doesNotMatch(res.text, /foodSearchResponse/);
      }
    });

    test('a part given twice is a Sender fault, never the two joined (a devkey split in halves does not authenticate)', async () => {
      const half = TEST_TOKEN.length >> 1;
      for (const [operation, parts] of [
        ['foodSearch', `<f:devkey>${TEST_TOKEN.slice(0, half)}</f:devkey><f:devkey>${TEST_TOKEN.slice(half)}</f:devkey><f:terms>cheddar</f:terms>`],
        ['foodSearch', `<f:devkey>${TEST_TOKEN}</f:devkey><f:terms>ched</f:terms><f:terms>dar</f:terms>`],
        ['getFood', `<f:devkey>${TEST_TOKEN}</f:devkey><f:id>${IDS.sharp}</f:id><f:id>${IDS.sharp}</f:id>`],
      ] as const) {
        const res = await post(fixture.server, `<env:Envelope xmlns:env="${SOAP12}"><env:Body><f:${operation} xmlns:f="urn:FoodSearch1">${parts}</f:${operation}></env:Body></env:Envelope>`);
        assert.equal(res.status, 400, parts);
        const fault = faultOf(res.text);
        assert.equal(fault.code, 'env:Sender', parts);
        assert.match(fault.reason ?? '', /is given more than once/, parts);
      }
    });

    test('element names of Object.prototype are only names', async () => {
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const extra = `<f:${name}>x</f:${name}>`;
        const res = await post(fixture.server, `<env:Envelope xmlns:env="${SOAP12}"><env:Body><f:foodSearch xmlns:f="urn:FoodSearch1">${extra}<f:devkey>${TEST_TOKEN}</f:devkey><f:terms>cheddar</f:terms></f:foodSearch></env:Body></env:Envelope>`);
        assert.equal(res.status, 200, `${name}: ${res.text}`);
        const noTerms = await post(fixture.server, `<env:Envelope xmlns:env="${SOAP12}"><env:Body><f:foodSearch xmlns:f="urn:FoodSearch1">${extra}<f:devkey>${TEST_TOKEN}</f:devkey></f:foodSearch></env:Body></env:Envelope>`);
        assert.equal(noTerms.status, 400, name);
        assert.match(faultOf(noTerms.text).reason ?? '', /foodSearch needs terms/);
      }
    });

    test('other methods on /soap/1.2 are 405 with Allow', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const res = await fetch(`${fixture.server.url}/soap/1.2`, { method });
        assert.equal(res.status, 405, method);
        assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
        assert.deepEqual(await res.json(), { code: 405, message: 'Method Not Allowed', details: `Method: ${method}` });
      }
    });

    test('any prefix, a default namespace, self-closing elements and single-quoted declarations parse', async () => {
      const variants = [
        `<?xml version='1.0' encoding='utf-8'?>\n<soap-env:Envelope xmlns:soap-env="${SOAP12}"><soap-env:Body><ns0:foodSearch xmlns:ns0="urn:FoodSearch1"><ns0:devkey>${TEST_TOKEN}</ns0:devkey><ns0:terms>cheddar</ns0:terms></ns0:foodSearch></soap-env:Body></soap-env:Envelope>`,
        `<E:Envelope xmlns:E="${SOAP12}"><E:Body><foodSearch xmlns="urn:FoodSearch1"><devkey>${TEST_TOKEN}</devkey><terms>cheddar</terms></foodSearch></E:Body></E:Envelope>`,
        `<E:Envelope xmlns:E="${SOAP12}" xmlns:q="urn:FoodSearch1"><E:Header/><E:Body><q:foodSearch><q:devkey>${TEST_TOKEN}</q:devkey><q:terms/></q:foodSearch></E:Body></E:Envelope>`,
      ];
      for (const body of variants) {
        const res = await post(fixture.server, body, 'application/soap+xml; charset=utf-8; action="urn:FoodSearchAction"');
        assert.equal(res.status, 200, res.text);
        assert.match(res.text, /<fs:foodSearchResponse>/);
      }
    });
  });
});
