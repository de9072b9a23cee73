import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi/document.js';

/**
 * Every response the integration tests receive through the shared helpers (server.ts) is
 * checked against the OpenAPI document the server publishes: a documented operation must list
 * the status it answered, and a JSON body must match that response's schema (Ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 uses). Errors of undocumented paths and methods must be the contract's
 * error body. A response to a `fields` request is checked with no member required (it holds
 * only what was selected), every other rule kept.
 */
type Json = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const document = openApiDocument() as Json & { paths: Record<string, Record<string, Json>>; components: Json & { responses: Record<string, Json> } };

function withoutRequired(value: unknown, keep: ReadonlySet<string>, name?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutRequired(v, keep));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value as Json)) {
    if (key === 'required' && (name === undefined || !keep.has(name))) continue;
    out[key] = withoutRequired(child, keep, name);
  }
  return out;
}

const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema({ $id: 'whole', components: document.components });
const schemas = document.components['schemas'] as Record<string, unknown>;
ajv.addSchema({
  $id: 'partial',
  components: {
    schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) =>
      [name, withoutRequired(schema, new Set(['Error', 'Metadata']), name)])),
  },
});

const compiled = new Map<string, ValidateFunction>();
function validator(ref: string, partial: boolean): ValidateFunction {
  const key = `${partial ? 'partial' : 'whole'}${ref}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: key });
    compiled.set(key, validate);
  }
  return validate;
}

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function resolveResponse(response: Json): Json {
  const ref = response['$ref'];
  if (typeof ref === 'string') return document.components.responses[ref.split('/').pop()!]!;
  return response;
}

/** Throws an Error naming the request and what does not match. */
export function checkResponse(method: string, url: string, status: number, contentType: string | null, text: string): void {
  const parsed = new URL(url, 'http://localhost');
  const fields = parsed.searchParams.get('fields');
  const partial = fields !== null && fields !== '';
  const operation = templates.find((t) => t.pattern.test(parsed.pathname));
  const verb = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
  const described = operation ? document.paths[operation.template]![verb] : undefined;
  const json = (contentType ?? '').includes('json') && text !== '' && method.toUpperCase() !== 'HEAD';
  const where = `${method} ${parsed.pathname}${parsed.search} → ${status}`;
  let schemaRef: string | undefined;
  if (described) {
    const responses = described['responses'] as Record<string, Json>;
    const response = responses[String(status)];
    if (!response) throw new Error(`OpenAPI: ${where}: status ${status} is not documented for this operation`);
    const content = resolveResponse(response)['content'] as Record<string, { schema: Json }> | undefined;
    const schema = content?.['application/json']?.schema;
    if (schema && json) schemaRef = typeof schema['$ref'] === 'string' ? schema['$ref'] : undefined;
    if (schema && !json && status !== 304 && method.toUpperCase() !== 'HEAD') {
      throw new Error(`OpenAPI: ${where}: documented as JSON, got ${contentType ?? 'no content type'}`);
    }
  } else if (status >= 400 && json) {
    schemaRef = '#/components/schemas/Error';
  }
  if (schemaRef === undefined) return;
  const validate = validator(schemaRef, partial);
  if (!validate(JSON.parse(text))) {
    throw new Error(`OpenAPI: ${where}: body does not match ${schemaRef}${partial ? ' (fields)' : ''}: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n${text.slice(0, 500)}`);
  }
}
