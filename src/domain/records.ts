import type { Nutrients } from './nutrients.js';
import type { Region } from './regions.js';

/** Brand as the API shows it (service.md 2.2). */
export interface Brand {
  readonly id: string;
  readonly name: string;
  readonly region: Region;
}

export interface CategoryPathEntry {
  readonly id: string;
  readonly name: string;
}

/** Category as the API shows it (service.md 2.3); `parent` is absent on top-level ones. */
export interface Category {
  readonly id: string;
  readonly region: Region;
  readonly name: string;
  readonly parent?: string;
  readonly hierarchy: readonly CategoryPathEntry[];
  readonly isLeaf: boolean;
}

export interface Tag {
  readonly id: string;
  readonly name: string;
}

export const SERVING_TYPES = ['mass', 'volume', 'serving'] as const;
export type ServingType = (typeof SERVING_TYPES)[number];

export interface Serving {
  readonly name: string;
  readonly scale: number;
  readonly type: ServingType;
  /**
   * The food's default serving (what an app offers first). Always present in responses: true
   * on exactly one serving, the first unless the data names another. Optional on import.
   */
  readonly isDefault?: boolean;
}

export interface Upc {
  readonly servingIndex: number;
  readonly quantity: number;
}

/**
 * The parts of a food that belong to the food alone (not to its brand, category or tags).
 * Optional members are absent when unknown, never null (contract C3 "Records").
 */
export interface FoodContent {
  readonly name: string;
  readonly classification: string;
  readonly otherNames?: readonly string[];
  readonly description?: string;
  readonly note?: string;
  readonly mass?: number;
  readonly volume?: number;
  readonly servings: readonly Serving[];
  readonly upcs: Readonly<Record<string, Upc>>;
  readonly nutrients: Nutrients;
}

/** Food as the API shows it (service.md 2.1). */
export interface Food extends FoodContent {
  readonly foodId: string;
  readonly revisionId: string;
  readonly region: Region;
  readonly brand: Brand;
  readonly category: Category;
  readonly tags: readonly Tag[];
  /** The serving marked `isDefault` (issue 25: real clients read it). */
  readonly defaultServing: Serving;
}

/** Records of the `catalog` import format (contract C4): references are ids. */
export interface CatalogBrand {
  readonly id: string;
  readonly name: string;
  readonly region: Region;
}

export interface CatalogCategory {
  readonly id: string;
  readonly name: string;
  readonly region: Region;
  readonly parent?: string;
}

export interface CatalogTag {
  readonly id: string;
  readonly name: string;
}

export interface CatalogFood extends FoodContent {
  readonly foodId: string;
  /** Kept as given; derived from the content when absent. */
  readonly revisionId?: string;
  readonly region: Region;
  readonly brand: string;
  readonly category: string;
  readonly tags: readonly string[];
}

/** Where a record came from, for error messages: a file and a line (or record index). */
export interface SourceRef {
  readonly file: string;
  /** 1-based line, for line-oriented files. */
  readonly line?: number;
  /** The record's place in a structured file, e.g. `foods[12]`. */
  readonly record?: string;
}

export type CatalogRecord =
  | { readonly kind: 'brand'; readonly value: CatalogBrand; readonly source: SourceRef }
  | { readonly kind: 'category'; readonly value: CatalogCategory; readonly source: SourceRef }
  | { readonly kind: 'tag'; readonly value: CatalogTag; readonly source: SourceRef }
  | { readonly kind: 'food'; readonly value: CatalogFood; readonly source: SourceRef }
  /** A source record the importer could not turn into a catalogue record. */
  | { readonly kind: 'invalid'; readonly reason: string; readonly source: SourceRef }
  /** A well-formed source record that is out of scope (e.g. not sold in au or us): reported, never fatal. */
  | { readonly kind: 'skipped'; readonly reason: string; readonly source: SourceRef };

export function describeSource(source: SourceRef): string {
  if (source.line !== undefined) return `${source.file}:${source.line}`;
  if (source.record !== undefined) return `${source.file} ${source.record}`;
  return source.file;
}
