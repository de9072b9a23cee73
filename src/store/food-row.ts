import type { CatalogFood } from '../domain/records.js';
import type { Region } from '../domain/regions.js';
import { canonicalParts, deriveRevisionId, member, type CanonicalParts } from '../domain/revision.js';
import { fold } from '../domain/text.js';
import { foodBarcodeKeys } from '../domain/barcodes.js';

/**
 * What a store writes for a food, as far as it needs no database: the content hash, the body
 * JSON and the folded texts. Pure, so an import can compute it off the writer's thread (the
 * import worker does, for a file import); the writer computes it itself for a plain food record.
 * Everything is a string or a boolean but the tag list, so a batch of rows travels cheaply.
 */
export interface FoodRow {
  readonly foodId: string;
  /** The revision stored: the one the record gave, else `contentHash`. */
  readonly revisionId: string;
  /** The record gave its revisionId (only a given one can clash with another food's). */
  readonly revisionGiven: boolean;
  /** The revision the content implies (deriveRevisionId). */
  readonly contentHash: string;
  readonly region: Region;
  readonly brand: string;
  readonly category: string;
  readonly tags: readonly string[];
  /** `tags` as stored: a JSON list. */
  readonly tagsJson: string;
  readonly name: string;
  /** fold(name): the name key, and the name as the search index reads it. */
  readonly nameKey: string;
  readonly classification: string;
  readonly classificationKey: string;
  /** fold(classification), stored and indexed. */
  readonly classificationFold: string;
  /** The other names and the description as the search index reads them (searchTexts). */
  readonly otherNamesFold: string;
  readonly descriptionFold: string;
  /** How many servings the food lists (the search ranks commonly eaten foods, which list more, first). */
  readonly servings: number;
  /** The columns that are not looked up by id: one JSON text (foodBody). */
  readonly body: string;
  /** The lookup keys of the food's barcodes (domain/barcodes.ts), comma-separated; '' when none. */
  readonly upcKeys: string;
}

/**
 * Food columns that are not looked up by id: stored as one JSON text, written from the same
 * canonical parts as the revision (nutrients and barcodes in key order), so an import
 * serialises them once: JSON.stringify of the body besides was a tenth of the import worker's
 * time.
 */
export function foodBody(parts: CanonicalParts): string {
  const body = member('otherNames', parts.otherNames) + member('description', parts.description) + member('note', parts.note) +
    member('mass', parts.mass) + member('volume', parts.volume) + member('servings', parts.bodyServings) + member('defaultServing', parts.defaultServing) +
    member('upcs', parts.upcs) +
    member('nutrients', parts.nutrients);
  return `{${body.slice(1)}}`;
}

/** A food's other names and description as its search index row holds them. */
export function searchTexts(content: { readonly otherNames?: readonly string[]; readonly description?: string }): {
  otherNames: string;
  description: string;
} {
  return { otherNames: fold((content.otherNames ?? []).join(' \n ')), description: fold(content.description ?? '') };
}

export function foodRow(food: CatalogFood): FoodRow {
  const parts = canonicalParts(food);
  const contentHash = deriveRevisionId(food, parts);
  const texts = searchTexts(food);
  return {
    foodId: food.foodId,
    revisionId: food.revisionId ?? contentHash,
    revisionGiven: food.revisionId !== undefined,
    contentHash,
    region: food.region,
    brand: food.brand,
    category: food.category,
    tags: food.tags,
    tagsJson: JSON.stringify(food.tags),
    name: food.name,
    nameKey: fold(food.name),
    classification: food.classification,
    classificationKey: food.classification.toLowerCase(),
    classificationFold: fold(food.classification),
    otherNamesFold: texts.otherNames,
    descriptionFold: texts.description,
    servings: food.servings.length,
    body: foodBody(parts),
    upcKeys: foodBarcodeKeys(Object.keys(food.upcs)).join(','),
  };
}
