import type { TestServer } from './server.js';

export const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

export function envelope(operation: string, fields: Record<string, string>): string {
  const inner = Object.entries(fields).map(([k, v]) => `<f:${k}>${v}</f:${k}>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<env:Envelope xmlns:env="${SOAP12}" xmlns:f="urn:FoodSearch1"><env:Body><f:${operation}>${inner}</f:${operation}></env:Body></env:Envelope>`;
}

export async function post(server: TestServer, body: string, contentType = 'application/soap+xml; charset=utf-8'): Promise<{ status: number; type: string; text: string }> {
  const res = await server.fetch('/soap/1.2', { method: 'POST', token: null, headers: { 'content-type': contentType }, body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The Code value and Reason text of a SOAP 1.2 fault, read as text (as clients compare them). */
export function faultOf(xml: string): { code?: string; reason?: string } {
  return {
    code: /<env:Code><env:Value>([^<]*)<\/env:Value>/.exec(xml)?.[1],
    reason: /<env:Text xml:lang="en">([^<]*)<\/env:Text>/.exec(xml)?.[1],
  };
}
