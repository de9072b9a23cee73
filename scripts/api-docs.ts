/**
 * Writes docs/api.md from the OpenAPI document: `npm run build && node dist/scripts/api-docs.js`.
 * `--json FILE` writes the document itself (the lint test runs redocly on it).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/http/openapi/document.js';
import { openApiMarkdown } from '../src/http/openapi/markdown.js';

export const API_MD = fileURLToPath(new URL('../../docs/api.md', import.meta.url));

const jsonAt = process.argv.indexOf('--json');
if (jsonAt !== -1 && process.argv[jsonAt + 1]) {
  writeFileSync(process.argv[jsonAt + 1]!, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
} else {
  writeFileSync(API_MD, openApiMarkdown(openApiDocument()));
  process.stdout.write(`wrote ${API_MD}\n`);
}
