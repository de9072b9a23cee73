/**
 * The benchmark's request sets, shared by `bench/run` (over HTTP) and `bench/profile` (in
 * process), so both measure exactly the same requests. Samples come from the catalogue itself
 * (ids, categories, brands, tags) and from the USDA vocabulary the generator uses (words).
 */
import Database from 'better-sqlite3';
import { usdaVocabulary } from './generate.js';
import { seededRandom, zipf } from './random.js';
import type { LoadSpec } from './load-spec.js';

export const TOKEN = 'bench-token';
export const AUTH = { authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}` };

export interface Scenario {
  readonly name: string;
  readonly paths: string[];
  readonly method?: 'POST';
  /** POST bodies (SOAP), sent to `paths[0]`. */
  readonly bodies?: string[];
  /** Request headers besides the token (Accept-Encoding for the compressed runs). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A scenario's three runs. Each starts elsewhere in the scenario's list (the warm-up at its end,
 * backwards; c=1 at its start; c=64 halfway), so that one run's requests are not answered from
 * the response cache another filled.
 */
export type ScenarioRun = 'warm-up' | 'c1' | 'c64';

/** The requests of one run of a scenario, in the order it sends them, as a load spec has them. */
export function scenarioRequests(sc: Scenario, run: ScenarioRun): Pick<LoadSpec, 'paths' | 'method' | 'bodies' | 'headers'> {
  const n = sc.bodies?.length ?? sc.paths.length;
  const start = run === 'c64' ? Math.floor(n / 2) : 0;
  const order = Array.from({ length: n }, (_, i) => (run === 'warm-up' ? n - 1 - i : (start + i) % n));
  if (sc.method) {
    return {
      paths: order.map(() => sc.paths[0]!), method: sc.method, bodies: order.map((i) => sc.bodies![i]!),
      headers: { ...AUTH, 'content-type': 'application/soap+xml; charset=utf-8' },
    };
  }
  return { paths: order.map((i) => sc.paths[i]!), headers: { ...AUTH, ...sc.headers } };
}

/** What browsers send: brotli is chosen. */
export const COMPRESSED = { 'accept-encoding': 'gzip, deflate, br' } as const;

/** The Zipf mix's request order: index into `zipfQueries`, the same in every run. */
export function zipfOrder(queries: number): (i: number) => number {
  const pick = zipf(queries, 1.0, seededRandom(9));
  const order = Array.from({ length: 4000 }, () => pick());
  return (i) => order[i]!;
}

export interface Samples {
  ids: string[]; upcs: string[]; words: string[]; zipfQueries: string[]; coldQueries: string[]; prefixes: string[];
  /** Type-ahead: 2–5 letters of a word, alone (`chi*`) and after whole words (`cheddar ch*`). */
  typeAhead: string[]; typeAheadAfterWords: string[];
  /** A word of 5 letters or more with one edit that makes it no word of the catalogue, alone or after a word. */
  typos: string[];
  nonLeaf: string[]; leaves: string[]; brands: string[]; tags: string[]; classifications: string[];
}

export function samples(db: string): Samples {
  const sql = new Database(db, { readonly: true });
  const random = seededRandom(7);
  const all = (query: string): string[] => sql.prepare(query).pluck().all() as string[];
  // Spread over the whole catalogue (a multiplicative hash of the rid), and as many codes as
  // ids: a short list would cycle and measure the response cache, not the barcode lookup.
  const UPC_SAMPLE = "SELECT j.key FROM foods f, json_each(f.body, '$.upcs') j ORDER BY (f.rid * 2654435761) % 4294967296 LIMIT 5000";
  const ids = all('SELECT id FROM foods WHERE rid % 97 = 0 LIMIT 5000');
  const words = usdaVocabulary().slice(0, 3000);
  const pick = zipf(words.length, 1.0, random);
  const phrase = (n: number): string => Array.from({ length: n }, () => words[pick()]).join(' ');
  const coldQueries = Array.from({ length: 20000 }, (_, i) => `${phrase(1 + (i % 3))} ${words[Math.floor(random() * words.length)]}`.split(' ').slice(0, 1 + (i % 3)).join(' '));
  const zipfQueries = Array.from({ length: 200 }, (_, i) => phrase(1 + (i % 3)));
  const prefixes = Array.from({ length: 5000 }, () => {
    const word = words[pick()]!;
    return word.slice(0, 2 + Math.floor(random() * 4));
  });
  const typeAheadRandom = seededRandom(8);
  const typeAheadPick = zipf(words.length, 1.0, typeAheadRandom);
  const prefixOf = (word: string): string => word.slice(0, Math.min(word.length, 2 + Math.floor(typeAheadRandom() * 4)));
  const typeAhead = [...new Set(Array.from({ length: 8000 }, () => `${prefixOf(words[typeAheadPick()]!)}*`))];
  const typeAheadAfterWords = [...new Set(Array.from({ length: 8000 }, (_, i) =>
    `${Array.from({ length: 1 + (i % 2) }, () => words[typeAheadPick()]).join(' ')} ${prefixOf(words[typeAheadPick()]!)}*`))];
  // One edit (a deleted, doubled, swapped or replaced letter) that makes no word of the catalogue.
  const vocabulary = new Set(usdaVocabulary());
  const typoRandom = seededRandom(12);
  const typoPick = zipf(words.length, 1.0, typoRandom);
  const typos = new Set<string>();
  while (typos.size < 4000) {
    const word = words[typoPick()]!;
    if (word.length < 5) continue;
    const at = 1 + Math.floor(typoRandom() * (word.length - 2));
    const edits = [
      word.slice(0, at) + word.slice(at + 1),
      word.slice(0, at) + word[at] + word.slice(at),
      word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2),
      word.slice(0, at) + 'aeiou'[Math.floor(typoRandom() * 5)] + word.slice(at + 1),
    ];
    const typo = edits[Math.floor(typoRandom() * edits.length)]!;
    if (typo.length < 5 || vocabulary.has(typo)) continue;
    typos.add(typos.size % 3 === 2 ? `${words[typoPick()]} ${typo}` : typo);
  }
  const result = {
    ids, upcs: all(UPC_SAMPLE), words, zipfQueries,
    coldQueries: [...new Set(coldQueries)], prefixes, typeAhead, typeAheadAfterWords, typos: [...typos],
    nonLeaf: all('SELECT id FROM categories WHERE is_leaf = 0 AND parent_id IS NOT NULL LIMIT 200'),
    leaves: all('SELECT id FROM categories WHERE is_leaf = 1 LIMIT 200'),
    brands: all('SELECT id FROM brands LIMIT 2000'),
    tags: all('SELECT id FROM tags'),
    classifications: all('SELECT DISTINCT classification FROM foods LIMIT 500'),
  };
  sql.close();
  return result;
}

export function scenarios(s: Samples, zipfFor: (i: number) => number, foods: number): Scenario[] {
  const n = 4000;
  const q = encodeURIComponent;
  const each = <T>(list: readonly T[], i: number): T => list[i % list.length]!;
  const soapSearch = (terms: string): string =>
    `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:f="urn:FoodSearch1"><e:Body><f:foodSearch><f:devkey>${TOKEN}</f:devkey><f:terms>${terms}</f:terms></f:foodSearch></e:Body></e:Envelope>`;
  const soapGet = (id: string): string =>
    `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:f="urn:FoodSearch1"><e:Body><f:getFood><f:devkey>${TOKEN}</f:devkey><f:id>${id}</f:id></f:getFood></e:Body></e:Envelope>`;
  return [
    { name: '1 GET /foods/{id}', paths: s.ids.map((id) => `/v1/foods/${id}`) },
    { name: '2 fts, cold (no query repeated)', paths: s.coldQueries.map((x) => `/v1/foods?query=${q(x)}`) },
    { name: '3 fts, Zipf query mix', paths: Array.from({ length: n }, (_, i) => `/v1/foods?query=${q(s.zipfQueries[zipfFor(i)]!)}`) },
    { name: '4 prefix (autocomplete)', paths: s.prefixes.map((x) => `/v1/foods?query-type=prefix&query=${q(x)}`) },
    { name: '5 filtered list', paths: Array.from({ length: n }, (_, i) =>
      `/v1/foods?region=${i % 2 ? 'au' : 'us'}&categories=${each(s.nonLeaf, i)}&tags=${each(s.tags, i)}&brands=!${each(s.brands, i)}&query=${q(each(s.words, i))}`) },
    { name: '6 grouping=brand&grouping-limit=3', paths: Array.from({ length: n }, (_, i) => `/v1/foods?query=${q(each(s.words, i))}&grouping=brand&grouping-limit=3`) },
    { name: '7 fields=$summary', paths: Array.from({ length: n }, (_, i) => `/v1/foods?query=${q(each(s.words, i))}&fields=$summary`) },
    { name: '8a /tags?categories=!X,Y', paths: Array.from({ length: n }, (_, i) => `/v1/tags?categories=!${each(s.leaves, i)},${each(s.leaves, i + 7)}`) },
    { name: '8b /brands?classifications=…', paths: Array.from({ length: n }, (_, i) => `/v1/brands?classifications=${q(`"${each(s.classifications, i).replace(/"/g, '\\"')}"`)}`) },
    { name: '9 deep paging offset=500000', paths: Array.from({ length: n }, (_, i) => `/v1/foods?offset=${Math.min(500000, Math.floor(foods / 2)) + (i % 100)}&limit=20`) },
    { name: '10a SOAP foodSearch', paths: ['/soap/1.2'], method: 'POST', bodies: Array.from({ length: n }, (_, i) => soapSearch(each(s.zipfQueries, i))) },
    { name: '10b SOAP getFood', paths: ['/soap/1.2'], method: 'POST', bodies: s.ids.map(soapGet) },
    { name: '14 barcode lookup ?upcs=', paths: s.upcs.map((code) => `/v1/foods?upcs=${code}`) },
    { name: '1z GET /foods/{id}, Accept-Encoding: br', paths: s.ids.map((id) => `/v1/foods/${id}`), headers: COMPRESSED },
    { name: '3z fts, Zipf query mix, Accept-Encoding: br', paths: Array.from({ length: n }, (_, i) => `/v1/foods?query=${q(s.zipfQueries[zipfFor(i)]!)}`), headers: COMPRESSED },
    { name: '11 type-ahead alone (chi*)', paths: s.typeAhead.map((x) => `/v1/foods?query=${q(x)}`) },
    { name: '12 type-ahead after words (cheddar ch*)', paths: s.typeAheadAfterWords.map((x) => `/v1/foods?query=${q(x)}`) },
    { name: '13 fts, a word corrected (typo)', paths: s.typos.map((x) => `/v1/foods?query=${q(x)}`) },
    // Every food grouped (store/grouping.ts): SQL had numbered the million rows per request (9.1 s on a slow VM).
    { name: '15 every food grouped by brand (no query)', paths: Array.from({ length: n }, (_, i) =>
      `/v1/foods?grouping=brand&offset=${(i * 7919) % Math.max(1, Math.floor(foods / 2))}${i % 3 === 0 ? '&grouping-limit=2' : ''}${i % 4 === 1 ? '&grouping-order=name:desc' : ''}`) },
  ];
}
