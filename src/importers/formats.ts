import type { CatalogRecord } from '../domain/records.js';
import type { Region } from '../domain/regions.js';

export interface ReaderOptions {
  /** Region to put records in, for sources that have none of their own (--region). */
  readonly region?: Region;
  /** Readers that know their input size report the fraction read (0..1), for the ETA. */
  readonly onProgress?: (fraction: number) => void;
}

/**
 * A source reader turns files into catalogue records, in an order where every record comes
 * after the brands, categories and tags it refers to. Records it cannot map are yielded as
 * `kind: 'invalid'` with their file and line, so the import can fail or skip them.
 */
export type SourceReader = (paths: readonly string[], options: ReaderOptions) => AsyncIterable<CatalogRecord>;

const readers = new Map<string, SourceReader>();

export function registerFormat(name: string, reader: SourceReader): void {
  readers.set(name, reader);
}

export function formatReader(name: string): SourceReader | undefined {
  return readers.get(name);
}

export function formatNames(): string[] {
  return [...readers.keys()].sort();
}
