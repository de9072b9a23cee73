/** XML text and attribute escaping for the response templates. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'))
    // Characters XML 1.0 cannot carry at all are dropped rather than sent broken.
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
}

export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const FOODSEARCH_NS = 'urn:FoodSearch1';
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
