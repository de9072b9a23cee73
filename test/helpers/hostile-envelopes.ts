import fc from 'fast-check';
import { IDS } from './fixture-catalog.js';
import { sometimes } from './hostile-requests.js';

/**
 * Generators of SOAP requests for the generative test (issue 22): envelopes from the SOAP 1.2
 * grammar and the WSDL's messages, valid and broken in every way a client or an attacker might
 * (versions, namespaces, prefixes, Header blocks, Body counts, operations, element names,
 * entities, DOCTYPEs, truncation, sizes, media types).
 */

export const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const FS = 'urn:FoodSearch1';

export interface SoapRequest {
  readonly contentType: string | undefined;
  readonly body: string;
  /** True when the envelope carries the test token as its devkey, where an operation reads it. */
  readonly validDevkey: boolean;
  /**
   * False when the request breaks a rule of SOAP 1.2 or of the WSDL (two Bodies, a Header after
   * the Body, a DOCTYPE, the wrong namespaces, an unknown or second operation, a truncated or
   * oversized envelope, a media type that is not XML): such a request is never answered 200.
   */
  readonly wellFormedRequest: boolean;
}

const text: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('cheddar', 'cheese', 'chees', 'milk skim', '', '   ', 'crème brûlée', 'a*', '&amp;&lt;&gt;&quot;', '&#x41;&#66;', '<![CDATA[<x>&]]>', 'a'.repeat(500)),
  fc.string({ maxLength: 12 }).map((s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;')),
  fc.constantFrom('&', '<', '&nope;', ']]>', '\u0000'),
);

function element(prefix: string, name: string, content: string): string {
  const tag = prefix === '' ? name : `${prefix}:${name}`;
  return content === '' ? `<${tag}/>` : `<${tag}>${content}</${tag}>`;
}

export function soapRequests(token: string): fc.Arbitrary<SoapRequest> {
  const devkey = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom({ value: token, valid: true }, { value: ` ${token}\n`, valid: true }) },
    { weight: 3, arbitrary: fc.constantFrom('', 'nope', token.toUpperCase(), `${token}x`, '<![CDATA[x]]>').map((value) => ({ value, valid: false })) },
  );
  const fieldName = fc.constantFrom('devkey', 'terms', 'id', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'x');
  const operation = fc.constantFrom('foodSearch', 'getFood', 'getFood', 'foodSearch', 'foodSearch', 'getFood', 'unknownOp', 'constructor', '__proto__');
  const envelope = fc.record({
    declaration: fc.constantFrom('', '<?xml version="1.0" encoding="UTF-8"?>\n', "<?xml version='1.0' encoding='utf-8'?>", '<?xml version="1.0" encoding="bogus"?>', '<?xml version="2.0"?>'),
    doctype: sometimes(fc.constantFrom('<!DOCTYPE x [<!ENTITY e "v">]>', '<!DOCTYPE x SYSTEM "file:///etc/passwd">'), 10),
    envNs: fc.constantFrom(SOAP12, SOAP12, SOAP12, SOAP12, SOAP12, SOAP12, SOAP11, 'urn:other', ''),
    envPrefix: fc.constantFrom('env', 'soap-env', 'S', ''),
    opNs: fc.constantFrom(FS, FS, FS, FS, FS, 'urn:other', ''),
    opPrefix: fc.constantFrom('f', 'ns0', ''),
    nsOnOperation: fc.boolean(),
    header: sometimes(fc.constantFrom('', '<x:Tx xmlns:x="urn:x" ENV:mustUnderstand="true"/>', '<x:Tx xmlns:x="urn:x" ENV:mustUnderstand="0"/>', '<x:Tx xmlns:x="urn:x"/>'), 3),
    bodies: fc.constantFrom(1, 1, 1, 1, 1, 1, 1, 1, 0, 2),
    headerAfterBody: fc.constantFrom(false, false, false, false, true),
    operation,
    secondOperation: sometimes(operation, 8),
    devkey,
    fields: fc.array(fc.tuple(fieldName, text), { maxLength: 3 }),
    id: fc.constantFrom(IDS.sharp, IDS.sharp.toUpperCase(), IDS.brie, '00000000-0000-4000-8000-999999999999', 'cheddar', ''),
    truncateAt: sometimes(fc.nat(), 8),
    padding: fc.constantFrom(0, 0, 0, 0, 0, 0, 0, 0, 0, 70 * 1024),
  }).map((e) => {
    const ep = e.envPrefix;
    const envTag = (name: string): string => (ep === '' ? name : `${ep}:${name}`);
    const envDecl = e.envNs === '' ? '' : ep === '' ? ` xmlns="${e.envNs}"` : ` xmlns:${ep}="${e.envNs}"`;
    const opDecl = e.opNs === '' ? '' : e.opPrefix === '' ? ` xmlns="${e.opNs}"` : ` xmlns:${e.opPrefix}="${e.opNs}"`;
    const children = [
      element(e.opPrefix, 'devkey', e.devkey.value),
      ...(e.operation === 'getFood' ? [element(e.opPrefix, 'id', e.id)] : []),
      ...e.fields.map(([name, value]) => element(e.opPrefix, name, value)),
    ].join('');
    const opTag = (name: string): string => (e.opPrefix === '' ? name : `${e.opPrefix}:${name}`);
    const op = (name: string): string => `<${opTag(name)}${e.nsOnOperation ? opDecl : ''}>${children}${'x'.repeat(e.padding)}</${opTag(name)}>`;
    const body = `<${envTag('Body')}>${op(e.operation)}${e.secondOperation ? op(e.secondOperation) : ''}</${envTag('Body')}>`;
    const header = e.header === null ? '' : `<${envTag('Header')}>${e.header.replaceAll('ENV', ep === '' ? 'env' : ep)}</${envTag('Header')}>`;
    const inside = e.headerAfterBody ? body.repeat(e.bodies) + header : header + body.repeat(e.bodies);
    // A Header block's env: prefix must be declared when the Envelope uses a default namespace.
    const extraDecl = ep === '' && header.includes('env:') ? ` xmlns:env="${SOAP12}"` : '';
    const xml = `${e.declaration}${e.doctype ?? ''}<${envTag('Envelope')}${envDecl}${extraDecl}${e.nsOnOperation ? '' : opDecl}>${inside}</${envTag('Envelope')}>`;
    const cut = e.truncateAt === null ? xml.length : e.truncateAt % (xml.length + 1);
    const valid = e.bodies === 1 && !(e.headerAfterBody && e.header !== null) && e.doctype === null && e.envNs === SOAP12 && e.opNs === FS &&
      (e.operation === 'foodSearch' || e.operation === 'getFood') && e.secondOperation === null && e.padding === 0 && cut === xml.length &&
      !(e.header ?? '').includes('mustUnderstand="true"');
    return { xml: xml.slice(0, cut), validDevkey: e.devkey.valid, valid };
  });
  return fc.record({
    envelope: fc.oneof({ weight: 9, arbitrary: envelope }, { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((xml) => ({ xml, validDevkey: false, valid: false })) }),
    contentType: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 11, arbitrary: fc.constantFrom(
      'application/soap+xml; charset=utf-8', 'application/soap+xml; charset=utf-8', 'application/soap+xml; charset=utf-8',
      'application/soap+xml; charset=utf-8; action="urn:FoodSearchAction"', 'application/soap+xml', 'text/xml; charset=utf-8',
      'text/xml; charset=utf-8', 'application/xml', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', ';;;', 'application/soap+xml; charset=latin1',
    ) }),
  }).map(({ envelope: { xml, validDevkey, valid }, contentType }) => ({
    contentType,
    body: xml,
    validDevkey,
    wellFormedRequest: valid && contentType !== undefined && /^(application\/soap\+xml|text\/xml|application\/xml)/.test(contentType),
  }));
}
