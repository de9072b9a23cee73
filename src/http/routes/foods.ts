import type { FastifyInstance } from 'fastify';
import type { CatalogReader, Page } from '../../store/catalog-store.js';
import { FOOD_BODY_MEMBERS } from '../../store/record-rows.js';
import { errors } from '../../errors.js';
import { foodListRequest, recordRequest } from '../../query/requests.js';
import { answerIfNotModified } from '../caching.js';
import { projector, selection } from '../fields.js';
import { getRoute, rawQuery } from '../get-route.js';
import { sendCached, type ResponseCache } from '../response-cache.js';

export function foodRoutes(app: FastifyInstance, reader: CatalogReader, cache: ResponseCache): void {
  getRoute(app, '/foods', async (request, reply) => sendCached(cache, request, reply, await reader.state(), () => {
    const { query, fields } = foodListRequest(rawQuery(request));
    const selected = selection(fields, { resource: 'food', collection: true, grouping: query.grouping !== undefined });
    // `corrections` only when the search corrected a word (contract C3).
    const metadata = (page: Page<unknown>): string => `{"total":${page.total},"limit":${query.limit},"offset":${query.offset}` +
      `${page.corrections ? `,"corrections":${JSON.stringify(page.corrections)}` : ''}}`;
    if (fields === undefined) {
      // Whole foods: spliced from stored JSON, no object built, and joined once: joining the
      // page and then wrapping it in its envelope copied the ~23 KB of a page once more in V8's
      // heap, on every never-seen search.
      return async () => {
        const page = await reader.foodsJson(query);
        const parts = ['{"metadata":', metadata(page), ',"foods":['];
        page.items.forEach((food, i) => parts.push(i === 0 ? food : `,${food}`));
        parts.push(']}');
        return parts.join('');
      };
    }
    // A selection of none of the body's members (`$summary`, say) is answered without reading it.
    const body = selected.keepsAny(FOOD_BODY_MEMBERS);
    return async () => {
      const page = await reader.foods(query, { body });
      return JSON.stringify({
        metadata: { total: page.total, limit: query.limit, offset: query.offset, ...(page.corrections ? { corrections: page.corrections } : {}) },
        foods: page.items.map((hit) => selected.select(hit.grouping ? { ...hit.food, grouping: hit.grouping } : hit.food)),
      });
    };
  }));

  getRoute(app, '/foods/:foodId', async (request, reply) => {
    const { fields } = recordRequest(rawQuery(request));
    const id = request.params['foodId'] ?? '';
    if (fields === undefined) {
      // The whole food: sent as the store serialised it, the most frequent request of all.
      const whole = await reader.foodJson(id);
      if (!whole) throw errors.recordNotFound('Food', id);
      if (answerIfNotModified(request, reply, whole.lastModified, whole.value.revisionId)) return reply;
      return reply.type('application/json; charset=utf-8').send(`{"food":${whole.value.json}}`);
    }
    const select = projector(fields, { resource: 'food', collection: false, grouping: false });
    const found = await reader.food(id);
    if (!found) throw errors.recordNotFound('Food', id);
    if (answerIfNotModified(request, reply, found.lastModified, found.value.revisionId)) return reply;
    return { food: select(found.value) };
  });
}
