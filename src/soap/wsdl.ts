import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { escapeXml } from './xml.js';

/** The WSDL ships as a source file (tsc copies no .wsdl): found from dist/src/soap or src/soap. */
const WSDL_PATH = fileURLToPath(new URL('../../../src/soap/foodsearch-1.2.wsdl', import.meta.url));

let template: string | undefined;

/** The WSDL with its soap12:address set to where the request came (clients post there). */
export function renderWsdl(address: string): string {
  template ??= readFileSync(WSDL_PATH, 'utf8');
  return template.replace(/(<soap12:address location=")[^"]*(")/, `$1${escapeXml(address)}$2`);
}
