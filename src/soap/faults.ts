import { escapeXml, FOODSEARCH_NS, SOAP11_NS, SOAP12_NS, XML_DECLARATION } from './xml.js';

/**
 * A SOAP 1.2 fault (contract C6). Its HTTP status follows from its code (SOAP 1.2 Part 2,
 * 7.5.1.2; soap-interop.md): Sender → 400 whatever the cause (a body too large or of the wrong
 * type too), every other code → 500.
 */
export class SoapFault extends Error {
  readonly status: number;

  constructor(
    readonly code: 'Sender' | 'Receiver' | 'MustUnderstand',
    reason: string,
    /** An application subcode in urn:FoodSearch1, e.g. FoodNotFound. */
    readonly subcode?: string,
    /** Detail elements (already XML) in urn:FoodSearch1. */
    readonly detail?: string,
  ) {
    super(reason);
    this.status = code === 'Sender' ? 400 : 500;
  }
}

/** A SOAP 1.1 envelope: answered in SOAP 1.1 with VersionMismatch and the Upgrade header. */
export class VersionMismatch extends Error {}

export const faults = {
  invalidDeveloperKey: () => new SoapFault('Sender', 'Invalid developer key'),
  forbidden: () => new SoapFault('Sender', 'Forbidden'),
  quotaExceeded: () => new SoapFault('Sender', 'Quota exceeded'),
  foodNotFound: (id: string) =>
    new SoapFault('Sender', 'Food not found', 'FoodNotFound', `<fs:foodNotFound><fs:id>${escapeXml(id)}</fs:id></fs:foodNotFound>`),
  malformed: (why: string) => new SoapFault('Sender', `Malformed request: ${why}`),
  wrongMediaType: () => new SoapFault('Sender', 'Send SOAP 1.2 as application/soap+xml'),
  internal: () => new SoapFault('Receiver', 'Internal error'),
  /** Receiver, HTTP 500 as SOAP 1.2's HTTP binding has it for every Receiver fault (sent with Retry-After). */
  storeUnavailable: (retryAfterSeconds: number) =>
    new SoapFault('Receiver', `Service unavailable: the catalogue store does not answer; retry in ${retryAfterSeconds} s`),
} as const;

export function faultEnvelope(fault: SoapFault): string {
  const subcode = fault.subcode
    ? `<env:Subcode><env:Value xmlns:fs="${FOODSEARCH_NS}">fs:${fault.subcode}</env:Value></env:Subcode>`
    : '';
  const detail = fault.detail ? `<env:Detail xmlns:fs="${FOODSEARCH_NS}">${fault.detail}</env:Detail>` : '';
  return `${XML_DECLARATION}<env:Envelope xmlns:env="${SOAP12_NS}"><env:Body><env:Fault>` +
    `<env:Code><env:Value>env:${fault.code}</env:Value>${subcode}</env:Code>` +
    `<env:Reason><env:Text xml:lang="en">${escapeXml(fault.message)}</env:Text></env:Reason>${detail}` +
    `</env:Fault></env:Body></env:Envelope>`;
}

/** SOAP 1.2 Part 1 §5.4.7 and Appendix A: a 1.1 request gets a 1.1 fault naming the 1.2 envelope. */
export function versionMismatchEnvelope(): string {
  return `${XML_DECLARATION}<s:Envelope xmlns:s="${SOAP11_NS}"><s:Header>` +
    `<env:Upgrade xmlns:env="${SOAP12_NS}"><env:SupportedEnvelope qname="ns1:Envelope" xmlns:ns1="${SOAP12_NS}"/></env:Upgrade>` +
    `</s:Header><s:Body><s:Fault><faultcode>s:VersionMismatch</faultcode>` +
    `<faultstring>This service speaks SOAP 1.2 only: send a SOAP 1.2 envelope (${SOAP12_NS})</faultstring>` +
    `</s:Fault></s:Body></s:Envelope>`;
}
