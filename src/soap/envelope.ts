import { SaxesParser } from 'saxes';
import { faults, SoapFault, VersionMismatch } from './faults.js';
import { FOODSEARCH_NS, SOAP11_NS, SOAP12_NS } from './xml.js';

export type SoapRequest =
  | { readonly operation: 'foodSearch'; readonly devkey: string | undefined; readonly terms: string }
  | { readonly operation: 'getFood'; readonly devkey: string | undefined; readonly id: string };

/** The operations' parts (foodsearch-1.2.wsdl). */
const FIELDS: ReadonlySet<string> = new Set(['devkey', 'terms', 'id']);

interface Element {
  readonly uri: string;
  readonly local: string;
}

/**
 * Parses a request envelope namespace-aware (any prefix, or a default namespace; declarations
 * on the Envelope or the operation element). No DTD is ever processed: a DOCTYPE is refused,
 * which shuts out external entities and entity expansion bombs alike. Dispatch is by the
 * operation element, never by the action.
 */
export function parseEnvelope(xml: string): SoapRequest {
  const parser = new SaxesParser({ xmlns: true, position: false });
  const stack: Element[] = [];
  let operation: 'foodSearch' | 'getFood' | undefined;
  // Keyed by the request's element names: a Map, so `constructor` or `__proto__` are just names.
  const values = new Map<string, string>();
  let field: string | undefined;
  let sawHeader = false;
  let sawBody = false;

  parser.on('doctype', () => {
    throw faults.malformed('a DOCTYPE is not allowed');
  });
  parser.on('opentag', (tag) => {
    const element = { uri: tag.uri, local: tag.local };
    const depth = stack.length;
    if (depth === 0) {
      if (element.local === 'Envelope' && element.uri === SOAP11_NS) throw new VersionMismatch();
      if (element.local !== 'Envelope' || element.uri !== SOAP12_NS) throw faults.malformed('the root element is not a SOAP 1.2 Envelope');
    } else if (depth === 1) {
      // SOAP 1.2 Part 1, 5.1: an optional Header, then exactly one Body, then nothing.
      if (element.uri !== SOAP12_NS || (element.local !== 'Header' && element.local !== 'Body')) {
        throw faults.malformed(`unexpected element ${element.local} in the Envelope`);
      }
      if (sawBody) throw faults.malformed(`${element.local} after the Body: an Envelope holds one Body, last`);
      if (element.local === 'Header') {
        if (sawHeader) throw faults.malformed('the Envelope holds more than one Header');
        sawHeader = true;
      } else {
        sawBody = true;
      }
    } else if (depth === 2 && stack[1]!.local === 'Header') {
      const must = Object.values(tag.attributes).find((a) => a.uri === SOAP12_NS && a.local === 'mustUnderstand');
      if (must && (must.value === 'true' || must.value === '1')) {
        throw new SoapFault('MustUnderstand', `Header block ${element.local} is not understood`);
      }
    } else if (depth === 2 && stack[1]!.local === 'Body') {
      if (operation) throw faults.malformed('the Body holds more than one operation');
      if (element.uri !== FOODSEARCH_NS || (element.local !== 'foodSearch' && element.local !== 'getFood')) {
        throw faults.malformed(`unknown operation {${element.uri}}${element.local}`);
      }
      operation = element.local;
    } else if (depth === 3 && operation) {
      if (element.uri === FOODSEARCH_NS || element.uri === '') {
        field = element.local;
        // The WSDL has each of them once: two `devkey`s would otherwise be read as one, joined.
        if (values.has(field) && FIELDS.has(field)) throw faults.malformed(`${field} is given more than once`);
        if (!values.has(field)) values.set(field, '');
      }
    }
    stack.push(element);
  });
  const append = (text: string): void => {
    if (field !== undefined && stack.length === 4) values.set(field, (values.get(field) ?? '') + text);
  };
  parser.on('text', append);
  parser.on('cdata', append);
  parser.on('closetag', () => {
    stack.pop();
    if (stack.length < 4) field = undefined;
  });
  parser.on('error', (error) => {
    throw faults.malformed(`not well-formed XML (${error.message.replace(/^[^:]*:\d+:\d+: /, '').slice(0, 120)})`);
  });

  try {
    parser.write(xml).close();
  } catch (error) {
    if (error instanceof SoapFault || error instanceof VersionMismatch) throw error;
    throw faults.malformed('not well-formed XML');
  }
  if (!sawBody) throw faults.malformed('the Envelope has no Body');
  if (!operation) throw faults.malformed('the Body holds no operation');
  const devkey = values.get('devkey');
  if (operation === 'foodSearch') {
    const terms = values.get('terms');
    if (terms === undefined) throw faults.malformed('foodSearch needs terms');
    return { operation, devkey, terms };
  }
  const id = values.get('id');
  if (id === undefined) throw faults.malformed('getFood needs id');
  return { operation, devkey, id: id.trim() };
}
