import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope } from '../../src/soap/envelope.js';
import { SoapFault, VersionMismatch, faultEnvelope, faults } from '../../src/soap/faults.js';
import { groupByCategory } from '../../src/soap/operations.js';
import { foodSearchResponse, xsdFloat } from '../../src/soap/responses.js';
import { escapeXml } from '../../src/soap/xml.js';
import { renderWsdl } from '../../src/soap/wsdl.js';

const ENV = 'http://www.w3.org/2003/05/soap-envelope';

describe('SOAP envelope parsing', () => {
  test('zeep style: namespaces on the operation element', () => {
    const xml = `<?xml version='1.0' encoding='utf-8'?>\n<soap-env:Envelope xmlns:soap-env="${ENV}"><soap-env:Body><ns0:getFood xmlns:ns0="urn:FoodSearch1"><ns0:devkey>KEY</ns0:devkey><ns0:id> ID </ns0:id></ns0:getFood></soap-env:Body></soap-env:Envelope>`;
    assert.deepEqual(parseEnvelope(xml), { operation: 'getFood', devkey: 'KEY', id: 'ID' });
  });

  test('PHP style: namespaces on the Envelope, entity-escaped text', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<env:Envelope xmlns:env="${ENV}" xmlns:ns1="urn:FoodSearch1"><env:Body><ns1:foodSearch><ns1:devkey>KEY</ns1:devkey><ns1:terms>a&lt;b &amp; "c" é</ns1:terms></ns1:foodSearch></env:Body></env:Envelope>`;
    assert.deepEqual(parseEnvelope(xml), { operation: 'foodSearch', devkey: 'KEY', terms: 'a<b & "c" é' });
  });

  test('self-closing elements are empty values; a missing devkey is undefined', () => {
    const xml = `<e:Envelope xmlns:e="${ENV}"><e:Body><foodSearch xmlns="urn:FoodSearch1"><terms/></foodSearch></e:Body></e:Envelope>`;
    assert.deepEqual(parseEnvelope(xml), { operation: 'foodSearch', devkey: undefined, terms: '' });
  });

  test('a SOAP 1.1 envelope is a version mismatch', () => {
    assert.throws(() => parseEnvelope('<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>'), VersionMismatch);
  });

  test('DOCTYPE, malformed XML, unbound prefixes and wrong namespaces are Sender faults', () => {
    const bad = [
      `<!DOCTYPE e><e:Envelope xmlns:e="${ENV}"><e:Body/></e:Envelope>`,
      `<e:Envelope xmlns:e="${ENV}"><e:Body>`,
      '<x:Envelope><x:Body/></x:Envelope>',
      `<e:Envelope xmlns:e="${ENV}"><e:Body><f:foodSearch xmlns:f="urn:Other"/></e:Body></e:Envelope>`,
      `<e:Envelope xmlns:e="${ENV}"></e:Envelope>`,
    ];
    for (const xml of bad) {
      assert.throws(() => parseEnvelope(xml), (error: unknown) => error instanceof SoapFault && error.code === 'Sender', xml);
    }
  });
});

describe('SOAP responses', () => {
  test('xsd:float form with 3 decimals, never NaN/Infinity spelled the JS way', () => {
    assert.equal(xsdFloat(402.96367), '402.964');
    assert.equal(xsdFloat(0.0001), '0');
    assert.equal(xsdFloat(-0.0001), '0');
    assert.equal(xsdFloat(Infinity), 'INF');
    assert.equal(xsdFloat(12), '12');
  });

  test('text is escaped', () => {
    assert.equal(escapeXml(`<a & "b" 'c'>`), '&lt;a &amp; &quot;b&quot; &apos;c&apos;&gt;');
    assert.equal(escapeXml('a\u0001b'), 'ab');
    assert.match(foodSearchResponse([{ name: 'A & B', children: [{ id: '1', name: '<x>' }] }]), /<fs:name>A &amp; B<\/fs:name><fs:children><fs:id>1<\/fs:id><fs:name>&lt;x&gt;<\/fs:name>/);
  });

  test('categories in the order of their best food, foods in rank order', () => {
    const hits = [
      { id: '1', name: 'a', categoryId: 'X', categoryName: 'Cat X' },
      { id: '2', name: 'b', categoryId: 'Y', categoryName: 'Cat Y' },
      { id: '3', name: 'c', categoryId: 'X', categoryName: 'Cat X' },
    ];
    assert.deepEqual(groupByCategory(hits), [
      { name: 'Cat X', children: [{ id: '1', name: 'a' }, { id: '3', name: 'c' }] },
      { name: 'Cat Y', children: [{ id: '2', name: 'b' }] },
    ]);
  });

  test('a fault is exactly the shape both real clients parsed', () => {
    assert.equal(faultEnvelope(faults.invalidDeveloperKey()),
      `<?xml version="1.0" encoding="UTF-8"?>\n<env:Envelope xmlns:env="${ENV}"><env:Body><env:Fault><env:Code><env:Value>env:Sender</env:Value></env:Code>` +
      '<env:Reason><env:Text xml:lang="en">Invalid developer key</env:Text></env:Reason></env:Fault></env:Body></env:Envelope>');
  });

  test('the WSDL gets the request address, escaped', () => {
    const wsdl = renderWsdl('http://h:1/soap/1.2?a&b');
    assert.match(wsdl, /<soap12:address location="http:\/\/h:1\/soap\/1\.2\?a&amp;b"\/>/);
    assert.equal((wsdl.match(/soap12:address location=/g) ?? []).length, 1);
  });
});
