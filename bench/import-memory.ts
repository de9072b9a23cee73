/**
 * Memory of the streaming importers on big input: generates a file (or FDC folder) of about
 * --mb megabytes per format, imports it through the real CLI into a fresh SQLite file, and
 * samples the import process's resident memory every 250 ms. Memory is flat when the RSS late in
 * the run is no higher than early in it, whatever the input size.
 *
 *   node dist/bench/import-memory.js [--formats off-jsonl,off-csv,fdc,catalog] [--mb 1024] [--seed 7]
 *
 * Generated inputs are cached in bench/.cache/import-memory/; results go to stdout and to
 * bench/IMPORT-MEMORY.md. This is a benchmark, not a test: it takes minutes per format.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generate, usdaVocabulary } from './generate.js';
import { seededRandom, zipf } from './random.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'bench/.cache/import-memory');
const CLI = join(ROOT, 'dist/src/cli/main.js');
const FDC_FIXTURE = join(ROOT, 'test/fixtures/usda-fdc/foundation-2023-04');
const MB = 1024 * 1024;

type Format = 'off-jsonl' | 'off-csv' | 'fdc' | 'catalog';
const FORMATS: readonly Format[] = ['off-jsonl', 'off-csv', 'fdc', 'catalog'];

/** A writer that respects back-pressure and counts bytes. */
class Sink {
  bytes = 0;
  private readonly out: ReturnType<typeof createWriteStream>;
  private buffered: string[] = [];
  private size = 0;
  constructor(path: string) {
    this.out = createWriteStream(path);
  }
  async line(text: string): Promise<void> {
    this.buffered.push(text);
    this.size += text.length + 1;
    if (this.size > 1 << 20) await this.flush();
  }
  async flush(): Promise<void> {
    const chunk = this.buffered.join('\n') + '\n';
    this.bytes += Buffer.byteLength(chunk);
    this.buffered = [];
    this.size = 0;
    if (!this.out.write(chunk)) await new Promise<void>((resolve) => this.out.once('drain', () => resolve()));
  }
  async close(): Promise<void> {
    if (this.buffered.length > 0) await this.flush();
    await new Promise<void>((resolve) => this.out.end(resolve));
  }
}

interface Vocabulary {
  readonly w: () => string;
  readonly int: (lo: number, hi: number) => number;
  readonly random: () => number;
  /** One of 20,000 brands, Zipf-distributed, as real catalogues have a bounded set of brands. */
  readonly brand: () => string;
  /** A taxonomy path of 1–3 tags over ~2,200 nodes (20 › 200 › 2,000), like OFF's categories_tags. */
  readonly categoryPath: () => string[];
}

function vocabulary(seed: number): Vocabulary {
  const random = seededRandom(seed);
  const words = usdaVocabulary();
  const pick = zipf(words.length, 1.0, random);
  const brandPick = zipf(20_000, 0.8, random);
  const leafPick = zipf(2_000, 0.8, random);
  const word = (k: number): string => words[k % words.length]!;
  return {
    w: () => words[pick()]!,
    int: (lo, hi) => lo + Math.floor(random() * (hi - lo + 1)),
    random,
    brand: () => {
      const b = brandPick();
      return `${word(b)} ${word(b * 7 + 3)} ${['foods', 'farms', 'co'][b % 3]}`;
    },
    categoryPath: () => {
      const leaf = leafPick();
      return [`en:${word(leaf % 20)}`, `en:${word(leaf % 200)}-${word(leaf % 7)}`, `en:${word(leaf)}-${word(leaf % 13)}`].slice(0, 1 + (leaf % 3));
    },
  };
}

const COUNTRIES = [['en:united-states'], ['en:united-states'], ['en:united-states'], ['en:australia'], ['en:australia', 'en:united-states'], ['en:france']];

/** An Open Food Facts product shaped like the dump's (the real one carries ~13 KB; this ~3 KB). */
function offProduct(i: number, v: ReturnType<typeof vocabulary>): Record<string, unknown> {
  const name = Array.from({ length: v.int(2, 5) }, v.w).join(' ');
  const n = (max: number): number => Math.round(v.random() * max * 100) / 100;
  return {
    code: String(1_000_000_000_000 + i), product_name: name, generic_name: v.random() < 0.3 ? `${v.w()} ${v.w()}` : '',
    brands: v.brand(), categories_tags: v.categoryPath(),
    labels_tags: v.random() < 0.4 ? [`en:${v.w()}`] : [], countries_tags: COUNTRIES[i % COUNTRIES.length],
    serving_size: '30 g', serving_quantity: 30,
    nutriments: {
      'energy-kj_100g': n(3000), fat_100g: n(60), 'saturated-fat_100g': n(20), carbohydrates_100g: n(90), sugars_100g: n(50),
      fiber_100g: n(15), proteins_100g: n(40), sodium_100g: n(2), salt_100g: n(5),
    },
    ingredients_text: Array.from({ length: v.int(60, 300) }, v.w).join(', '),
    _keywords: Array.from({ length: 12 }, v.w),
  };
}

async function generateOffJsonl(path: string, bytes: number, seed: number): Promise<void> {
  const v = vocabulary(seed);
  const sink = new Sink(path);
  for (let i = 0; sink.bytes < bytes; i++) await sink.line(JSON.stringify(offProduct(i, v)));
  await sink.close();
}

const OFF_COLUMNS = ['code', 'product_name', 'generic_name', 'brands', 'categories_tags', 'labels_tags', 'countries_tags', 'serving_size',
  'serving_quantity', 'ingredients_text', 'energy-kj_100g', 'fat_100g', 'saturated-fat_100g', 'carbohydrates_100g', 'sugars_100g',
  'fiber_100g', 'proteins_100g', 'sodium_100g', 'salt_100g'];

async function generateOffCsv(path: string, bytes: number, seed: number): Promise<void> {
  const v = vocabulary(seed);
  const sink = new Sink(path);
  await sink.line(OFF_COLUMNS.join('\t'));
  for (let i = 0; sink.bytes < bytes; i++) {
    const p = offProduct(i, v);
    const n = p['nutriments'] as Record<string, number>;
    const cell = (c: string): string => {
      const value = c.endsWith('_100g') ? n[c] : p[c];
      return Array.isArray(value) ? value.join(',') : typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    };
    await sink.line(OFF_COLUMNS.map(cell).join('\t'));
  }
  await sink.close();
}

/** An FDC folder in the publisher's style: the real small tables, generated food, branded, nutrient and portion rows. */
async function generateFdc(dir: string, bytes: number, seed: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const table of ['nutrient', 'measure_unit', 'food_category']) copyFileSync(join(FDC_FIXTURE, `${table}.csv`), join(dir, `${table}.csv`));
  const nutrientIds = readFileSync(join(FDC_FIXTURE, 'nutrient.csv'), 'utf8').split('\n').slice(1).map((l) => /^"(\d+)"/.exec(l)?.[1]).filter((x) => x !== undefined);
  const v = vocabulary(seed);
  const q = (...fields: (string | number)[]): string => fields.map((f) => `"${String(f).replace(/"/g, '""')}"`).join(',');
  const food = new Sink(join(dir, 'food.csv'));
  const branded = new Sink(join(dir, 'branded_food.csv'));
  const nutrients = new Sink(join(dir, 'food_nutrient.csv'));
  const portions = new Sink(join(dir, 'food_portion.csv'));
  await food.line(q('fdc_id', 'data_type', 'description', 'food_category_id', 'publication_date'));
  await branded.line(q('fdc_id', 'brand_owner', 'brand_name', 'subbrand_name', 'gtin_upc', 'ingredients', 'not_a_significant_source_of',
    'serving_size', 'serving_size_unit', 'household_serving_fulltext', 'branded_food_category', 'data_source', 'package_weight',
    'modified_date', 'available_date', 'market_country', 'discontinued_date', 'preparation_state_code', 'trade_channel', 'short_description'));
  await nutrients.line(q('id', 'fdc_id', 'nutrient_id', 'amount', 'data_points', 'derivation_id', 'min', 'max', 'median', 'footnote', 'min_year_acquired'));
  await portions.line(q('id', 'fdc_id', 'seq_num', 'amount', 'measure_unit_id', 'portion_description', 'modifier', 'gram_weight', 'data_points', 'footnote', 'min_year_acquired'));
  let nutrientRow = 1;
  let portionRow = 1;
  const total = (): number => food.bytes + branded.bytes + nutrients.bytes + portions.bytes;
  for (let i = 0; total() < bytes; i++) {
    const fdc = 100_000 + i;
    const isBranded = i % 4 !== 0;
    const description = Array.from({ length: v.int(2, 6) }, v.w).join(', ');
    await food.line(q(fdc, isBranded ? 'branded_food' : 'sr_legacy_food', isBranded ? description.toUpperCase() : description, isBranded ? '' : v.int(1, 25), '2021-10-28'));
    if (isBranded) {
      await branded.line(q(fdc, v.brand(), '', '', String(10_000_000_000 + i).padStart(14, '0'),
        Array.from({ length: v.int(10, 80) }, v.w).join(', ').toUpperCase(), '', v.int(10, 400), i % 7 === 0 ? 'ml' : 'g', '1 serving',
        v.categoryPath().pop()!.slice(3), 'LI', '', '2020-09-03', '2020-11-13', 'United States', '', '', '', ''));
    }
    // About 60 rows a food, most of them nutrients we do not keep, as in the real downloads.
    for (let k = 0; k < 60; k++) {
      await nutrients.line(q(nutrientRow++, fdc, nutrientIds[(i * 7 + k * 13) % nutrientIds.length]!, (v.random() * 100).toFixed(3), '', '', '', '', '', '', ''));
    }
    for (let s = 1; s <= v.int(0, 3); s++) await portions.line(q(portionRow++, fdc, s, 1, 1000, '', v.w(), v.int(5, 300), '', '', ''));
  }
  await Promise.all([food.close(), branded.close(), nutrients.close(), portions.close()]);
}

async function generateCatalog(path: string, bytes: number, seed: number): Promise<void> {
  // ~890 bytes a food at seed 7 (measured: 864 MB for 1,014,000 foods); brands and tree add ~2 MB.
  const foods = Math.max(1000, Math.round((bytes - 2 * MB) / 890));
  const out = createWriteStream(path);
  await generate({ foods, seed, out });
  await new Promise<void>((resolve) => out.end(resolve));
}

function sizeOf(path: string): number {
  const s = statSync(path);
  return s.isDirectory() ? readdirSync(path).reduce((sum, f) => sum + statSync(join(path, f)).size, 0) : s.size;
}

/** The generated input for a format, made once per size and seed. */
async function input(format: Format, mb: number, seed: number): Promise<string> {
  const name = { 'off-jsonl': 'off.jsonl', 'off-csv': 'off.csv', fdc: 'fdc', catalog: 'catalog.jsonl' }[format];
  const path = join(CACHE, `${mb}MB-seed${seed}`, name);
  if (existsSync(path)) return path;
  mkdirSync(join(CACHE, `${mb}MB-seed${seed}`), { recursive: true });
  const partial = `${path}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const started = performance.now();
  const make = { 'off-jsonl': generateOffJsonl, 'off-csv': generateOffCsv, fdc: generateFdc, catalog: generateCatalog }[format];
  await make(partial, mb * MB, seed);
  renameSync(partial, path);
  process.stderr.write(`generated ${format} (${(sizeOf(path) / MB).toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return path;
}

function rssKb(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

interface Measured {
  format: Format; inputMb: number; seconds: number; summary: string; samples: number[]; peakMb: number; scratchMb: number;
}

async function measure(format: Format, path: string): Promise<Measured> {
  const db = join(CACHE, `measure-${format}.db`);
  rmSync(db, { force: true });
  const cliFormat = format.startsWith('off') ? 'off' : format;
  const started = performance.now();
  // The fdc importer stages its tables in FOODLOOKUP_TMPDIR: its size is sampled too.
  const scratch = join(CACHE, `scratch-${format}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const child = spawn(process.execPath, [CLI, 'import', cliFormat, path, '--db', db, '--skip-invalid'], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FOODLOOKUP_TMPDIR: scratch },
  });
  let stdout = '';
  let skippedLines = 0;
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (skippedLines += d.toString().split('\n').length - 1));
  const samples: number[] = [];
  let peak = 0;
  let scratchPeak = 0;
  const timer = setInterval(() => {
    const m = child.pid === undefined ? undefined : rssKb(child.pid);
    if (m) {
      samples.push(m.rss / 1024);
      peak = Math.max(peak, m.peak / 1024);
    }
    try {
      for (const entry of readdirSync(scratch)) scratchPeak = Math.max(scratchPeak, sizeOf(join(scratch, entry)) / MB);
    } catch {
      // the importer removed its scratch folder between listing and sizing
    }
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(timer);
  if (code !== 0) throw new Error(`import ${format} failed (${code}): ${stdout}`);
  rmSync(db, { force: true });
  rmSync(scratch, { recursive: true, force: true });
  const seconds = (performance.now() - started) / 1000;
  return { format, inputMb: sizeOf(path) / MB, seconds, summary: `${stdout.trim().split('\n').pop() ?? ''} (${skippedLines} stderr lines)`, samples, peakMb: peak, scratchMb: scratchPeak };
}

const at = (samples: readonly number[], fraction: number): number => samples[Math.min(samples.length - 1, Math.floor(samples.length * fraction))] ?? 0;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { formats: { type: 'string' }, mb: { type: 'string' }, seed: { type: 'string' } } });
  const formats = (values.formats?.split(',') ?? FORMATS) as Format[];
  for (const f of formats) if (!FORMATS.includes(f)) throw new Error(`unknown format ${f}; one of ${FORMATS.join(', ')}`);
  const mb = Number(values.mb ?? 1024);
  const seed = Number(values.seed ?? 7);
  const rows: string[] = [];
  for (const format of formats) {
    const path = await input(format, mb, seed);
    process.stderr.write(`importing ${format}…\n`);
    const m = await measure(format, path);
    const row = `| ${m.format} | ${m.inputMb.toFixed(0)} MB | ${m.seconds.toFixed(0)} s | ${(m.inputMb / m.seconds).toFixed(1)} MB/s | ${at(m.samples, 0.1).toFixed(0)} | ${at(m.samples, 0.5).toFixed(0)} | ${at(m.samples, 0.9).toFixed(0)} | ${m.peakMb.toFixed(0)} | ${m.scratchMb.toFixed(0)} MB | ${m.summary} |`;
    process.stdout.write(`${row}\n`);
    rows.push(row);
  }
  const report = [
    '# Importer memory on large generated input',
    '',
    `Generated by \`node dist/bench/import-memory.js --formats ${formats.join(',')} --mb ${mb} --seed ${seed}\` on ${new Date().toISOString().slice(0, 10)}`,
    `(${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}).`,
    'RSS of the import process in MiB, sampled every 250 ms, at 10 %, 50 % and 90 % of the run; peak = VmHWM;',
    'temp disk = the largest the importer\'s scratch files grew (fdc stages its tables in SQLite).',
    '',
    '| format | input | time | throughput | RSS 10 % | RSS 50 % | RSS 90 % | peak | temp disk | summary |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  writeFileSync(join(ROOT, 'bench/IMPORT-MEMORY.md'), report);
}
