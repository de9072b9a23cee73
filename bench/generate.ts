/**
 * Deterministic generator of large catalogues in the `catalog` .jsonl format, for benchmarks.
 *
 *   node dist/bench/generate.js [--foods N] [--seed S] [--out FILE]
 *
 * Names are built from the words of the bundled USDA descriptions with Zipf-like frequencies
 * (common words such as "raw", "chicken", "cheese" land in 5–10 % of foods, as in real
 * catalogues); ~20,000 brands over both regions; a category tree 3–4 levels deep with ~2,000
 * leaves; ~200 tags (0–4 per food); 1–8 servings; some upcs, otherNames and descriptions;
 * 8–22 nutrients. The same seed always writes the same file.
 */
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NUTRIENT_KEYS } from '../src/domain/nutrients.js';
import { deriveId } from '../src/domain/ids.js';
import { GENERIC_BRAND_IDS } from '../src/domain/regions.js';
import { seededRandom, zipf } from './random.js';

const NS = 'd9c4e0a2-7b3f-5c1e-9a8d-2f6b4c3e1a90';

/** Words of the bundled USDA long descriptions, most frequent first. */
export function usdaVocabulary(): string[] {
  const file = fileURLToPath(new URL('../../data/usda-sr21/FOOD_DES.txt.gz', import.meta.url));
  const text = gunzipSync(readFileSync(file)).toString('latin1');
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const description = line.split('^')[2]?.replace(/~/g, '') ?? '';
    for (const word of description.toLowerCase().match(/[a-z]{3,}/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
}

const cap = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

export async function generate(options: { foods: number; seed: number; out: NodeJS.WritableStream }): Promise<void> {
  const random = seededRandom(options.seed);
  const words = usdaVocabulary();
  const word = zipf(words.length, 1.0, random);
  const w = (): string => words[word()]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const lines: string[] = [];
  const flush = async (force = false): Promise<void> => {
    if (lines.length < 5000 && !force) return;
    const chunk = lines.join('\n') + '\n';
    lines.length = 0;
    if (!options.out.write(chunk)) await new Promise((resolve) => options.out.once('drain', resolve));
  };

  const brandsByRegion: Record<'au' | 'us', string[]> = { au: [GENERIC_BRAND_IDS.au], us: [GENERIC_BRAND_IDS.us] };
  for (let i = 0; i < 20_000; i++) {
    const region = i % 2 === 0 ? 'us' : 'au';
    const id = deriveId(NS, `brand:${i}`);
    brandsByRegion[region].push(id);
    lines.push(JSON.stringify({ kind: 'brand', id, name: `${cap(w())} ${cap(w())} ${['Co', 'Foods', 'Farms', 'Kitchen', 'Ltd'][i % 5]}`, region }));
    await flush();
  }
  const leavesByRegion: Record<'au' | 'us', string[]> = { au: [], us: [] };
  let c = 0;
  for (const region of ['au', 'us'] as const) {
    for (let t = 0; t < 10; t++) {
      const top = deriveId(NS, `cat:${c++}`);
      lines.push(JSON.stringify({ kind: 'category', id: top, name: `${cap(w())} ${cap(w())}`, region }));
      for (let m = 0; m < 10; m++) {
        const mid = deriveId(NS, `cat:${c++}`);
        lines.push(JSON.stringify({ kind: 'category', id: mid, name: `${cap(w())} ${w()}`, region, parent: top }));
        const deep = m % 3 === 0;
        for (let l = 0; l < (deep ? 4 : 12); l++) {
          const leafParent = deep ? deriveId(NS, `cat:${c++}`) : mid;
          if (deep) lines.push(JSON.stringify({ kind: 'category', id: leafParent, name: `${cap(w())} ${w()}`, region, parent: mid }));
          for (let k = 0; k < (deep ? 3 : 1); k++) {
            const leaf = deriveId(NS, `cat:${c++}`);
            leavesByRegion[region].push(leaf);
            lines.push(JSON.stringify({ kind: 'category', id: leaf, name: `${cap(w())} ${w()} ${w()}`, region, parent: leafParent }));
          }
        }
      }
      await flush();
    }
  }
  const tags = Array.from({ length: 200 }, (_, i) => deriveId(NS, `tag:${i}`));
  tags.forEach((id, i) => lines.push(JSON.stringify({ kind: 'tag', id, name: `${cap(w())} ${i}` })));
  const tagPick = zipf(tags.length, 0.8, random);
  const brandPick = zipf(10_000, 0.6, random);
  const servingNames = ['100 g', '1 cup', '1 serving', '1 slice', '1 piece', '1 tbsp', '1 oz', '1 package'];
  for (let i = 0; i < options.foods; i++) {
    const region = random() < 0.5 ? 'us' : 'au';
    const nameWords = Array.from({ length: int(2, 6) }, w);
    const servings = Array.from({ length: int(1, 8) }, (_, s) => ({
      name: s === 0 ? '100 g' : servingNames[int(1, servingNames.length - 1)]! + (s > 1 ? ` (${s})` : ''),
      scale: s === 0 ? 1 : Math.round(random() * 300) / 100 + 0.01,
      type: s === 0 ? 'mass' : (['mass', 'volume', 'serving'] as const)[int(0, 2)],
    }));
    const nutrients: Record<string, number> = {};
    const keys = [...NUTRIENT_KEYS].sort(() => random() - 0.5).slice(0, int(8, 22));
    for (const key of keys) nutrients[key] = Math.round(random() * 50000) / 100;
    const food: Record<string, unknown> = {
      kind: 'food',
      foodId: deriveId(NS, `food:${i}`),
      region,
      brand: brandsByRegion[region][brandPick() % brandsByRegion[region].length],
      category: leavesByRegion[region][int(0, leavesByRegion[region].length - 1)],
      tags: [...new Set(Array.from({ length: int(0, 4) }, () => tags[tagPick()]))],
      name: cap(nameWords.join(' ')).replace(/ (\w+) /, ', $1 '),
      classification: `${cap(nameWords[0]!)}, ${nameWords[1]}`,
      mass: 100,
      servings,
      nutrients,
    };
    if (random() < 0.3) food['upcs'] = { [String(10_000_000_000 + i).padStart(12, '0')]: { servingIndex: int(0, servings.length - 1), quantity: 1 } };
    if (random() < 0.2) food['otherNames'] = [`${cap(w())} ${w()}`];
    if (random() < 0.2) food['description'] = Array.from({ length: int(5, 15) }, w).join(' ');
    lines.push(JSON.stringify(food));
    await flush();
  }
  await flush(true);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { foods: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } } });
  // The bench's cache folder does not exist in a fresh clone.
  if (values.out) mkdirSync(dirname(values.out), { recursive: true });
  const out = values.out ? createWriteStream(values.out) : process.stdout;
  const foods = Number(values.foods ?? 1_000_000);
  const started = performance.now();
  await generate({ foods, seed: Number(values.seed ?? 42), out });
  if (values.out) await new Promise<void>((resolve) => (out as ReturnType<typeof createWriteStream>).end(resolve));
  process.stderr.write(`generated ${foods} foods in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
