import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from './openapi/document.js';
import { assetRoutes } from './static-assets.js';

const require = createRequire(import.meta.url);
/** swagger-ui-dist, installed from npm with the service: the docs page needs no internet. */
const SWAGGER_UI = dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;
/** The explorer, built by `npm run build` (web/ → dist/web/). */
const EXPLORER = fileURLToPath(new URL('../../web/', import.meta.url));

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>foodlookup API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css?v=${SWAGGER_VERSION}">
<link rel="icon" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js?v=${SWAGGER_VERSION}"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Swagger UI's settings: the document of this server, "Try it out" on (Authorize takes the
 * token as the Basic username), no calls to the public validator.
 */
const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  tryItOutEnabled: true,
  persistAuthorization: true,
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

/**
 * GET /openapi.json (the document), GET /docs (Swagger UI rendering it, with "Try it out"),
 * and the food explorer at GET /. None needs a token: they hold no data; the explorer and the
 * docs page ask for one to call /v1.
 */
export function apiDocsRoutes(app: FastifyInstance): void {
  const document = JSON.stringify(openApiDocument());
  const day = 24 * 3600;
  assetRoutes(app, [
    { url: '/openapi.json', contentType: 'application/json; charset=utf-8', source: { text: () => document } },
    { url: '/docs', contentType: 'text/html; charset=utf-8', source: { text: () => DOCS_HTML } },
    { url: '/docs/init.js', contentType: 'text/javascript; charset=utf-8', source: { text: () => DOCS_INIT } },
    { url: '/docs/swagger-ui.css', contentType: 'text/css; charset=utf-8', source: { file: join(SWAGGER_UI, 'swagger-ui.css') }, maxAgeSeconds: day },
    { url: '/docs/swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8', source: { file: join(SWAGGER_UI, 'swagger-ui-bundle.js') }, maxAgeSeconds: day },
    { url: '/docs/favicon-32x32.png', contentType: 'image/png', source: { file: join(SWAGGER_UI, 'favicon-32x32.png') }, maxAgeSeconds: day },
    { url: '/', contentType: 'text/html; charset=utf-8', source: { file: join(EXPLORER, 'index.html') } },
    { url: '/explorer.js', contentType: 'text/javascript; charset=utf-8', source: { file: join(EXPLORER, 'explorer.js') } },
    { url: '/explorer.css', contentType: 'text/css; charset=utf-8', source: { file: join(EXPLORER, 'explorer.css') } },
  ]);
}
