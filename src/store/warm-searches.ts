import { envInteger } from '../config.js';
import { textWords } from '../domain/text.js';
import { foodListRequest } from '../query/requests.js';
import type { SearchEngine } from '../search/engine.js';
import type { CatalogHealth, CatalogReader, StoreLogger } from './catalog-store.js';
import { inTurns } from './turns.js';

/**
 * A new serving process answers its first searches in code V8 has not compiled yet: the
 * engine's loops run in the interpreter, and the compiler's threads take the process's core in
 * the middle of the first thousands of requests. At 1,000,000 foods, a server's first scenario
 * of never-seen searches (bench scenario 2, c=1, after a second of warm-up at 8 connections)
 * had a p99 of 3.38–4.76 ms against 2.55–2.87 once the server had answered 3,000 searches of
 * its own first (four alternated pairs of bench runs, bench/README.md "Kept").
 *
 * So once it listens, a serving process asks its store the searches of foods of its own
 * catalogue, spread over it (`sampleNames`): each name's first word, its first letters
 * as a type-ahead prefix, two and three words, a type-ahead word after a whole one, and a long
 * word with two letters swapped (a typo), as a search box sends them, all through the same
 * store method as GET /foods. It works in turns of about `turnMs` (at least one search),
 * between which the event loop serves requests. A request waits for the turn under way at each
 * of its hops through the event loop (a page's rows are read in a batch a hop later): at
 * 1,000,000 foods, searches sent one at a time during the warm-up took p50 7.8–8.1 ms with
 * turns of 1 ms and 21 ms with turns of 5 ms, against 2.9–3.7 ms once it was done (two servers
 * each, 2026-11-30). The response cache is not involved, and the lists the
 * searches load are the list cache's to keep or drop as traffic goes on.
 */

/** Searches asked once a server listens (0: none), FOODLOOKUP_WARM_SEARCHES. */
export function warmSearchCount(): number {
  return envInteger('FOODLOOKUP_WARM_SEARCHES', 0, 3000);
}

/** Searches made of one name, by kind; a name gives about five. */
const SEARCHES_A_NAME = 5;

/** Names asked of the store at most (read at once, before the first turn). */
const MAX_NAMES = 2000;

/** The searches a search box would send for one food's name. */
export function searchesOfName(name: string): string[] {
  const words = textWords(name).filter((word) => /^\p{L}{2,}$/u.test(word));
  const [first, second, third] = words;
  if (first === undefined) return [];
  const out = [first, `${first.slice(0, 3)}*`];
  // The type-ahead word 2 to 4 letters long, as keystrokes leave it, varied by name.
  if (second !== undefined) out.push(`${first} ${second}`, `${first} ${second.slice(0, 2 + (first.length % 3))}*`);
  if (third !== undefined) out.push(`${first} ${second} ${third}`);
  const long = words.find((word) => word.length >= 5);
  if (long !== undefined) out.push(`${long.slice(0, 2)}${long[3]}${long[2]}${long.slice(4)}`);
  return out;
}

/** `count` rids from 1 to `last`, evenly apart: the foods whose names a store samples (repeated when `count` > `last`). */
export function spreadRids(last: number, count: number): number[] {
  return last < 1 ? [] : Array.from({ length: count }, (_, i) => 1 + Math.floor((i * last) / count));
}

export type SearchWarmUpState = NonNullable<CatalogHealth['searchWarmUp']>;

export interface SearchWarmUpDone {
  readonly searches: number;
  readonly ms: number;
}

/** What the warm-up asks of the search engine: its steps, and the lists it then holds (for the log). */
export type WarmedEngine = Pick<SearchEngine, 'warmSteps'> & { readonly index: { readonly listsHeld: number } };

export interface SearchWarmUpSource {
  /** Up to `count` food names spread over the catalogue. */
  sampleNames(count: number): Promise<readonly string[]>;
  /** Whether the store still answers (false once it closed: the warm-up stops). */
  isOpen(): boolean;
  /** The search engine whose work is taken in turns before the searches: its commonest lists and bound orders (engine.ts `warmSteps`). */
  engine?(): Promise<WarmedEngine>;
}

/** The searches a server asks itself: `count` of them, made of the names `sampleNames` gives (none when they make none; asked again, round, when they make fewer). */
export async function ownSearches(sampleNames: SearchWarmUpSource['sampleNames'], count: number): Promise<string[]> {
  const names = await sampleNames(Math.min(MAX_NAMES, Math.ceil(count / SEARCHES_A_NAME)));
  const searches = names.flatMap(searchesOfName);
  return searches.length === 0 ? [] : Array.from({ length: count }, (_, i) => searches[i % searches.length]!);
}

/**
 * Asks `reader` `count` searches made of the names `source` gives (none when they make none),
 * in turns of about `turnMs`; returns how many it asked, or undefined when the store closed first.
 */
export async function warmSearches(reader: Pick<CatalogReader, 'foodsJson'>, source: SearchWarmUpSource, count: number, turnMs = 1): Promise<SearchWarmUpDone | undefined> {
  const started = performance.now();
  const searches = await ownSearches((n) => source.sampleNames(n), count);
  let asked = 0;
  while (asked < searches.length) {
    await new Promise((resolve) => setImmediate(resolve));
    const turn = performance.now();
    while (asked < searches.length && performance.now() - turn < turnMs) {
      if (!source.isOpen()) return undefined;
      const { query } = foodListRequest({ query: searches[asked++]! });
      await reader.foodsJson(query);
    }
  }
  return { searches: asked, ms: performance.now() - started };
}

/**
 * A store's warm-up, started once the server listens, and where it stands (`state`, for GET
 * /readyz): `searching`, then `done`; `off` when the setting is 0; `stopped` when the store
 * closed first or a search failed (logged). It first takes the engine's lists and bound orders
 * in turns (`source.engine`, made also when the searches are off), then waits for `before` (SQLite:
 * its read of the file's pages ahead, which the searches would otherwise do themselves, by
 * page faults), then asks the searches.
 */
export class SearchWarmUp {
  state: SearchWarmUpState;

  constructor(reader: Pick<CatalogReader, 'foodsJson'>, source: SearchWarmUpSource, log: () => StoreLogger | undefined, count = warmSearchCount(), before: Promise<unknown> = Promise.resolve()) {
    this.state = count === 0 ? 'off' : 'searching';
    void this.run(reader, source, log, count, before).then((outcome) => {
      if (this.state === 'searching') this.state = outcome;
    }, (error: unknown) => {
      if (this.state === 'searching') this.state = 'stopped';
      log()?.warn({ err: error }, 'stopped warming the search code: a search of its own failed');
    });
  }

  private async run(reader: Pick<CatalogReader, 'foodsJson'>, source: SearchWarmUpSource, log: () => StoreLogger | undefined, count: number, before: Promise<unknown>): Promise<'done' | 'stopped'> {
    const started = performance.now();
    const engine = await source.engine?.();
    if (engine !== undefined) {
      if ((await inTurns(engine.warmSteps(), () => source.isOpen())) === undefined) return 'stopped';
      log()?.info({ ms: Math.round(performance.now() - started), listBytes: engine.index.listsHeld },
        "loaded the search engine's commonest lists and made its bound orders, in turns, once it listened");
    }
    await before;
    if (count === 0) return 'done';
    if (!source.isOpen()) return 'stopped';
    const done = await warmSearches(reader, source, count);
    if (done === undefined) return 'stopped';
    log()?.info({ searches: done.searches, ms: Math.round(done.ms) }, 'answered searches of its own catalogue, so that V8 has compiled the search code before requests need it');
    return 'done';
  }
}
