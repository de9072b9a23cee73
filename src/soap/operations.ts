import type { CatalogReader, NameSearchHit } from '../store/catalog-store.js';
import type { Authenticator } from '../tokens/authenticator.js';
import { queryWords } from '../domain/text.js';
import { tooManyWords } from '../search/plan.js';
import { faults } from './faults.js';
import type { SoapRequest } from './envelope.js';
import { foodSearchResponse, getFoodResponse, type SearchCategory } from './responses.js';

/** At most this many foods in one foodSearch response (contract C6). */
export const MAX_SEARCH_FOODS = 100;

/**
 * Categories ordered by their best food's rank, foods in rank order inside each: the hits
 * come best first, so first appearance gives both orders.
 */
export function groupByCategory(hits: readonly NameSearchHit[]): SearchCategory[] {
  const groups = new Map<string, { name: string; children: { id: string; name: string }[] }>();
  for (const hit of hits) {
    let group = groups.get(hit.categoryId);
    if (!group) groups.set(hit.categoryId, (group = { name: hit.categoryName, children: [] }));
    group.children.push({ id: hit.id, name: hit.name });
  }
  return [...groups.values()];
}

/** Checks the devkey with the same rules as a JSON token, then runs the operation. */
export async function runOperation(request: SoapRequest, deps: { reader: CatalogReader; auth: Authenticator }, ip: string): Promise<string> {
  const devkey = request.devkey?.trim();
  const auth = await deps.auth.authenticate(devkey === '' ? undefined : devkey, ip);
  if (!auth.ok) {
    if (auth.reason === 'forbidden') throw faults.forbidden();
    if (auth.reason === 'quota') throw faults.quotaExceeded();
    throw faults.invalidDeveloperKey();
  }
  if (request.operation === 'foodSearch') {
    // Whole words only: a trailing * is not a prefix here, as the terms are names' words.
    const words = [...new Set(queryWords(request.terms).map((w) => w.text))];
    if (words.length === 0) return foodSearchResponse([]);
    const tooMany = tooManyWords(words.map((text) => ({ text, prefix: false })));
    if (tooMany !== undefined) throw faults.malformed(`terms: ${tooMany}`);
    return foodSearchResponse(groupByCategory(await deps.reader.searchFoodNames(words, MAX_SEARCH_FOODS)));
  }
  const found = await deps.reader.food(request.id);
  // The id is the foodId: a food found by its revisionId is not what the client asked for.
  if (!found || found.value.foodId !== request.id.toLowerCase()) throw faults.foodNotFound(request.id);
  return getFoodResponse(found.value);
}
