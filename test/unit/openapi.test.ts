import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../src/http/openapi/document.js';
import { openApiMarkdown } from '../../src/http/openapi/markdown.js';
import { ROOT, tempDir } from '../helpers/paths.js';

test('the OpenAPI document passes Redocly lint with no error and no warning', () => {
  const tmp = tempDir();
  try {
    const file = join(tmp.dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(openApiDocument(), null, 2));
    const result = spawnSync(join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'stylish'], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    assert.equal(result.status, 0, output);
    assert.match(output, /Woohoo! Your API description is valid/, output);
    // Problems are listed one a line as `line:column  warning|error  rule  message` (the stylish format).
    assert.doesNotMatch(output, /^\s*\d+:\d+\s+(warning|error)\s/m, output);
    assert.doesNotMatch(output, /You have \d+ warnings?/, output);
  } finally {
    tmp.cleanup();
  }
});

test('docs/api.md is what scripts/api-docs.ts writes from the document (run it after changing the document)', () => {
  assert.equal(readFileSync(join(ROOT, 'docs/api.md'), 'utf8'), openApiMarkdown(openApiDocument()));
});
