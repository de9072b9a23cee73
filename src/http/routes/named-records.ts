import type { FastifyInstance } from 'fastify';
import type { CatalogReader, Page, Paging, Stamped } from '../../store/catalog-store.js';
import { errors } from '../../errors.js';
import type { RawQuery } from '../../query/params.js';
import {
  brandListRequest, categoryListRequest, recordRequest, tagListRequest, type ListRequest,
} from '../../query/requests.js';
import type { ResourceKind } from '../../query/fields.js';
import { answerIfNotModified } from '../caching.js';
import { projector } from '../fields.js';
import { getRoute, rawQuery } from '../get-route.js';
import { sendCached, type ResponseCache } from '../response-cache.js';

interface NamedResource<Q extends Paging, R extends object> {
  readonly kind: Exclude<ResourceKind, 'food'>;
  readonly label: 'Brand' | 'Category' | 'Tag';
  readonly plural: string;
  readonly parse: (raw: RawQuery) => ListRequest<Q>;
  readonly list: (query: Q) => Promise<Page<R>>;
  readonly get: (id: string) => Promise<Stamped<R> | undefined>;
}

/** Brands, categories and tags share one shape: a list in name order and one by id. */
function namedRoutes<Q extends Paging, R extends object>(
  app: FastifyInstance, reader: CatalogReader, cache: ResponseCache, r: NamedResource<Q, R>,
): void {
  getRoute(app, `/${r.plural}`, async (request, reply) => sendCached(cache, request, reply, await reader.state(), () => {
    const { query, fields } = r.parse(rawQuery(request));
    const select = projector(fields, { resource: r.kind, collection: true, grouping: false });
    return async () => {
      const page = await r.list(query);
      return JSON.stringify({
        metadata: { total: page.total, limit: query.limit, offset: query.offset, ...(page.corrections ? { corrections: page.corrections } : {}) },
        [r.plural]: page.items.map(select),
      });
    };
  }));

  getRoute(app, `/${r.plural}/:id`, async (request, reply) => {
    const { fields } = recordRequest(rawQuery(request));
    const select = projector(fields, { resource: r.kind, collection: false, grouping: false });
    const id = request.params['id'] ?? '';
    const found = await r.get(id);
    if (!found) throw errors.recordNotFound(r.label, id);
    if (answerIfNotModified(request, reply, found.lastModified, id.toLowerCase())) return reply;
    return { [r.kind]: select(found.value) };
  });
}

export function namedRecordRoutes(app: FastifyInstance, reader: CatalogReader, cache: ResponseCache): void {
  namedRoutes(app, reader, cache, {
    kind: 'brand', label: 'Brand', plural: 'brands', parse: brandListRequest,
    list: (q) => reader.brands(q), get: (id) => reader.brand(id),
  });
  namedRoutes(app, reader, cache, {
    kind: 'category', label: 'Category', plural: 'categories', parse: categoryListRequest,
    list: (q) => reader.categories(q), get: (id) => reader.category(id),
  });
  namedRoutes(app, reader, cache, {
    kind: 'tag', label: 'Tag', plural: 'tags', parse: tagListRequest,
    list: (q) => reader.tags(q), get: (id) => reader.tag(id),
  });
}
