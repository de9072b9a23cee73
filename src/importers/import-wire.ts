import type { CatalogBrand, CatalogCategory, CatalogTag, SourceRef } from '../domain/records.js';
import type { Region } from '../domain/regions.js';
import type { FoodRow } from '../store/food-row.js';
import type { ImportItem } from './check-record.js';
import { BatchReader, type BatchWriter } from './batch-bytes.js';

/**
 * What the import worker (import-worker.ts) and the importing thread (worker-reader.ts) say to
 * each other. Records travel in batches of plain values (strings, numbers, booleans) written as
 * bytes (batch-bytes.ts): structured clone of a list of objects (a food row, let alone the
 * nested food) costs about as much to receive as the JSON.parse the worker saved.
 */

/** A record as the worker sends it: foods as their prepared rows. */
export type WireItem = Exclude<ImportItem, { kind: 'food' }>;

export interface WorkerJob {
  readonly format: string;
  readonly paths: readonly string[];
  readonly region?: Region;
  /** The importer wants the reader's fraction read (ReaderOptions.onProgress). */
  readonly progress: boolean;
  /**
   * Records per batch; with `share`, lines per block (a batch is a block's records, empty for a
   * block of blank lines).
   */
  readonly batchSize: number;
  /**
   * This worker's share of a line-by-line format's files (formats.ts LineRecords): of the
   * blocks of `batchSize` lines, counted across the files, those whose number modulo `count`
   * is `index`. Undefined: the worker reads every record.
   */
  readonly share?: { readonly index: number; readonly count: number };
  /** Batches the worker may send before the first of them is acknowledged. */
  readonly ahead: number;
}

/** An error as it crosses threads: the message is what the import reports. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string;
}

export type FromWorker =
  /**
   * `batch`: the batch's bytes, over an ArrayBuffer transferred with the message (BatchWriter.take);
   * `fraction`: the reader's fraction read when the batch was sent, when it moved since the last batch.
   */
  | { readonly type: 'batch'; readonly batch: Uint8Array<ArrayBuffer>; readonly fraction: number | null }
  /** Every record was sent. */
  | { readonly type: 'done'; readonly fraction: number | null }
  /** Reading failed after the records sent so far. */
  | { readonly type: 'failed'; readonly error: WireError };

export type ToWorker =
  /** A batch was put: the worker may send one more, and write it over the batch's buffer (transferred back). */
  | { readonly type: 'ack'; readonly buffer?: ArrayBuffer }
  /** The import ended early: stop reading (closing the reader's files) and exit. */
  | { readonly type: 'stop' };

export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(error.stack !== undefined ? { stack: error.stack } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

export function fromWireError(wire: WireError): Error {
  const error = new Error(wire.message);
  error.name = wire.name;
  if (wire.stack !== undefined) error.stack = wire.stack;
  if (wire.code !== undefined) Object.assign(error, { code: wire.code });
  return error;
}

function encodeSource(source: SourceRef, out: BatchWriter): void {
  out.push(source.file, source.line ?? null, source.record ?? null);
}

function encodeFoodRow(row: FoodRow, out: BatchWriter): void {
  // `tags` is `tagsJson` parsed: sent once.
  out.push(
    row.foodId, row.revisionId, row.revisionGiven, row.contentHash, row.region, row.brand, row.category, row.tagsJson,
    row.name, row.nameKey, row.classification, row.classificationKey, row.classificationFold, row.otherNamesFold,
    row.descriptionFold, row.servings, row.body, row.upcKeys,
  );
}

/** Appends one record to a batch. */
export function encodeItem(item: WireItem, out: BatchWriter): void {
  out.push(item.kind);
  encodeSource(item.source, out);
  switch (item.kind) {
    case 'brand':
    case 'category':
    case 'tag':
      out.push(JSON.stringify(item.value));
      break;
    case 'food-row':
      encodeFoodRow(item.row, out);
      break;
    case 'invalid':
    case 'skipped':
      out.push(item.reason);
      break;
  }
}

function decodeSource(r: BatchReader): SourceRef {
  const file = r.string();
  const line = r.optional<number>();
  const record = r.optional<string>();
  return { file, ...(line !== undefined ? { line } : {}), ...(record !== undefined ? { record } : {}) };
}

function decodeFoodRow(r: BatchReader): FoodRow {
  const foodId = r.string();
  const revisionId = r.string();
  const revisionGiven = r.boolean();
  const contentHash = r.string();
  const region = r.string() as Region;
  const brand = r.string();
  const category = r.string();
  const tagsJson = r.string();
  // Members are evaluated in order: the rest of the slots are read as written.
  return {
    foodId, revisionId, revisionGiven, contentHash, region, brand, category,
    tags: JSON.parse(tagsJson) as string[],
    tagsJson,
    name: r.string(),
    nameKey: r.string(),
    classification: r.string(),
    classificationKey: r.string(),
    classificationFold: r.string(),
    otherNamesFold: r.string(),
    descriptionFold: r.string(),
    servings: r.number(),
    body: r.string(),
    upcKeys: r.string(),
  };
}

/** The records of a batch, in order, each read when it is asked for. */
export function* decodeItems(batch: Uint8Array): Generator<WireItem> {
  const r = new BatchReader(batch);
  while (r.more) {
    const kind = r.string() as WireItem['kind'];
    const source = decodeSource(r);
    switch (kind) {
      // The values were checked by the worker.
      case 'brand':
        yield { kind, value: JSON.parse(r.string()) as CatalogBrand, source };
        break;
      case 'category':
        yield { kind, value: JSON.parse(r.string()) as CatalogCategory, source };
        break;
      case 'tag':
        yield { kind, value: JSON.parse(r.string()) as CatalogTag, source };
        break;
      case 'food-row':
        yield { kind, row: decodeFoodRow(r), source };
        break;
      case 'invalid':
      case 'skipped':
        yield { kind, reason: r.string(), source };
        break;
    }
  }
}
