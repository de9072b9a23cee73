import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CatalogReader } from '../store/catalog-store.js';
import type { Authenticator } from '../tokens/authenticator.js';
import { parseEnvelope } from './envelope.js';
import { faultEnvelope, faults, SoapFault, VersionMismatch, versionMismatchEnvelope } from './faults.js';
import { runOperation } from './operations.js';
import { renderWsdl } from './wsdl.js';
import { ApiError } from '../errors.js';
import { isStoreUnavailable, logStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../http/errors.js';

export interface SoapOptions {
  readonly reader: CatalogReader;
  readonly auth: Authenticator;
}

/** Requests are small (two short strings): anything larger is refused before parsing. */
export const MAX_SOAP_BODY = 64 * 1024;
const SOAP_TYPE = 'application/soap+xml; charset=utf-8';
export const SOAP_PATH = '/soap/1.2';

function address(request: FastifyRequest): string {
  // request.protocol and request.host honour X-Forwarded-* only when trustProxy is set.
  return `${request.protocol}://${request.host}${SOAP_PATH}`;
}

/**
 * The legacy SOAP 1.2 interface (service.md 4.6, contract C6) on the JSON interface's port:
 * POST envelopes, GET ?wsdl. Every error leaves as a SOAP fault, never as JSON.
 */
export function soapPlugin(app: FastifyInstance, options: SoapOptions, done: (error?: Error) => void): void {
  // Only XML media types are read here: the app's own parsers (JSON, text/plain) would hand a
  // text/plain envelope over as if it were one.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/soap+xml', 'text/xml', 'application/xml'], { parseAs: 'string', bodyLimit: MAX_SOAP_BODY },
    (_request, body, parsed) => parsed(null, body));

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    let fault: SoapFault;
    if (error instanceof SoapFault) fault = error;
    // The app's own refusals of the request's form (no Host, an unmet Expect, a URI too long).
    else if (error instanceof ApiError) fault = new SoapFault('Sender', error.details === undefined ? error.message : `${error.message}: ${error.details}`);
    else if (error.statusCode === 413) fault = new SoapFault('Sender', `Request body larger than ${MAX_SOAP_BODY} bytes`);
    else if (error.statusCode === 415) fault = faults.wrongMediaType();
    else if (typeof error.statusCode === 'number' && error.statusCode < 500) fault = faults.malformed(error.message.slice(0, 120));
    else if (isStoreUnavailable(error)) {
      logStoreUnavailable(request, error);
      fault = faults.storeUnavailable(STORE_RETRY_AFTER_SECONDS);
      void reply.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    } else {
      request.log.error({ err: error }, 'SOAP request failed');
      fault = faults.internal();
    }
    return reply.code(fault.status).type(SOAP_TYPE).send(faultEnvelope(fault));
  });

  app.get(SOAP_PATH, (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (!Object.keys(query).some((k) => k.toLowerCase() === 'wsdl')) {
      return reply.code(404).type('application/json; charset=utf-8').send({
        code: 404, message: 'Not Found', details: `Path: ${SOAP_PATH} (GET ${SOAP_PATH}?wsdl for the WSDL; POST SOAP 1.2 envelopes)`,
      });
    }
    return reply.type('text/xml; charset=utf-8').send(renderWsdl(address(request)));
  });

  app.post(SOAP_PATH, async (request, reply) => {
    // A body without Content-Type reaches here unread.
    if (typeof request.body !== 'string') throw faults.wrongMediaType();
    const body = request.body;
    let parsed;
    try {
      parsed = parseEnvelope(body);
    } catch (error) {
      if (error instanceof VersionMismatch) {
        return reply.code(500).type('text/xml; charset=utf-8').send(versionMismatchEnvelope());
      }
      throw error;
    }
    const xml = await runOperation(parsed, options, request.ip);
    return reply.type(SOAP_TYPE).send(xml);
  });

  done();
}
