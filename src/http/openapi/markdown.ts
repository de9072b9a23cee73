/**
 * docs/api.md, written from the OpenAPI document (scripts/api-docs.ts): the reference one link
 * away for a reader of the repository. test/unit/api-docs.test.ts keeps the committed file equal
 * to what this writes.
 */
type Json = Record<string, unknown>;

/** A document value as text: strings as they are, anything else as JSON. */
const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));
const cell = (value: unknown): string => text(value).replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function resolve(document: Json, value: Json): Json {
  const ref = value['$ref'];
  if (typeof ref !== 'string') return value;
  let node: unknown = document;
  for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Json)[part];
  return node as Json;
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (typeof schema['$ref'] === 'string') return (schema['$ref']).split('/').pop()!;
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[]).map((v) => `\`${String(v)}\``).join(', ');
  if (schema['type'] === 'array') return `list of ${typeOf(schema['items'] as Json)}`;
  if (schema['type'] === 'object' && schema['additionalProperties'] && typeof schema['additionalProperties'] === 'object') return 'map';
  const format = typeof schema['format'] === 'string' ? ` (${schema['format']})` : '';
  return `${text(schema['type'])}${format}`;
}

export function openApiMarkdown(document: Json): string {
  const info = document['info'] as Json;
  const out: string[] = [
    '# foodlookup API reference',
    '',
    '<!-- Written by `node dist/scripts/api-docs.js` from the OpenAPI document (src/http/openapi/); do not edit by hand. -->',
    '',
    'The same document is served at `GET /openapi.json` and rendered, with "Try it out", at `GET /docs`.',
    '',
    text(info['description']),
    '',
  ];
  const paths = document['paths'] as Record<string, Record<string, Json>>;
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      out.push(`## ${method.toUpperCase()} ${path}`, '', `**${text(operation['summary'])}**${Array.isArray(operation['security']) && (operation['security'] as unknown[]).length === 0 ? ' (no token needed)' : ''}`, '');
      if (operation['description']) out.push(text(operation['description']), '');
      const parameters = (operation['parameters'] as Json[] | undefined ?? []).map((p) => resolve(document, p));
      if (parameters.length > 0) {
        out.push('| parameter | in | values | rules |', '|---|---|---|---|');
        for (const p of parameters) {
          const example = p['example'] !== undefined ? ` Example: \`${text(p['example'])}\`.` : '';
          out.push(`| \`${text(p['name'])}\` | ${text(p['in'])} | ${cell(typeOf(p['schema'] as Json))} | ${cell(`${text(p['description'])}${example}`)} |`);
        }
        out.push('');
      }
      out.push('| status | meaning | body |', '|---|---|---|');
      for (const [status, raw] of Object.entries(operation['responses'] as Record<string, Json>)) {
        const response = resolve(document, raw);
        const schema = (response['content'] as Record<string, { schema: Json }> | undefined)?.['application/json']?.schema;
        out.push(`| ${status} | ${cell(response['description'])} | ${cell(typeOf(schema))} |`);
      }
      out.push('');
    }
  }
  out.push('## Schemas', '');
  const schemas = (document['components'] as Json)['schemas'] as Record<string, Json>;
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`### ${name}`, '');
    if (schema['description']) out.push(text(schema['description']), '');
    const properties = schema['properties'] as Record<string, Json> | undefined;
    if (properties) {
      const required = new Set((schema['required'] as string[] | undefined) ?? []);
      out.push('| member | type | always | notes |', '|---|---|---|---|');
      for (const [member, property] of Object.entries(properties)) {
        out.push(`| \`${member}\` | ${cell(typeOf(property))} | ${required.has(member) ? 'yes' : ''} | ${cell(property['description'])} |`);
      }
      out.push('');
    }
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
