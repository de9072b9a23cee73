import type { CatalogRecord, SourceRef } from '../domain/records.js';
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

/**
 * A format whose files (some kinds of them) hold one record a line, each line read on its own,
 * with no state carried from line to line: the import can then share a file's lines among
 * several workers, each taking whole blocks of lines in turn (import-worker.ts).
 */
export interface LineRecords {
  /** Whether every one of these files is such a file. */
  readonly reads: (paths: readonly string[]) => boolean;
  /** The record of one line, or undefined for a line that holds none (a blank one). */
  readonly record: (text: string, source: SourceRef) => CatalogRecord | undefined;
}

const lineFormats = new Map<string, LineRecords>();

export function registerLineRecords(name: string, lines: LineRecords): void {
  lineFormats.set(name, lines);
}

export function lineRecordsOf(name: string): LineRecords | undefined {
  return lineFormats.get(name);
}
