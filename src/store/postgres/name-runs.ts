import { envInteger } from '../../config.js';

/** Code units from U+D800 on: where UTF-16 order and code point order can differ. */
const HIGH_UNITS = /[\uD800-\uFFFF]/;

/** A food as the name order reads it. */
export interface NamedFood {
  readonly rid: number;
  readonly name: string;
  readonly id: string;
}

/** Whether the food's name or id has a code unit from U+D800 on: its order is then not JavaScript's string order. */
export function needsCodePoints(food: NamedFood): boolean {
  return HIGH_UNITS.test(food.name) || HIGH_UNITS.test(food.id);
}

/**
 * A food's sort key: its name, NUL, its id, NUL, its rid. No name or id holds a NUL, which sorts
 * before every other character (a name before the names it begins), and ids are unique, so
 * without a code unit from U+D800 on JavaScript's own string order is the order of (name, id)
 * by code point, SQLite's BINARY and PostgreSQL's "C".
 */
export function nameKey(food: NamedFood): string {
  return `${food.name}\0${food.id}\0${food.rid}`;
}

export function ridOfKey(key: string): number {
  return Number(key.slice(key.lastIndexOf('\0') + 1));
}

/** Foods a run holds before it is sorted (FOODLOOKUP_PG_NAME_RUN: tests cross many runs with a small file). */
function runLength(): number {
  return envInteger('FOODLOOKUP_PG_NAME_RUN', 1, 65_536);
}

/**
 * The name order of the foods an import writes, made while their records arrive: the foods go
 * into a run, a full run is sorted there and then, and the order is the runs merged at the
 * end. Sorting a million keys after the records took 2.2 s of the import's main thread, and
 * making them 1.3 s. A run holds the foods themselves (which the import keeps anyway), not
 * their keys: the keys are made to sort a run and dropped (held until the end, ~90 bytes a
 * food). Holds nothing once a name or id has a code unit from U+D800 on: the order is then
 * made whole by code point (search-store.ts).
 */
export class NameRuns {
  private readonly runs: NamedFood[][] = [];
  private current: NamedFood[] = [];
  private usable = true;

  /** `length`: foods a run holds before it is sorted. */
  constructor(private readonly length = runLength()) {}

  add(food: NamedFood): void {
    if (!this.usable) return;
    if (needsCodePoints(food)) {
      this.usable = false;
      this.runs.length = 0;
      this.current = [];
      return;
    }
    this.current.push(food);
    if (this.current.length >= this.length) this.closeRun();
  }

  /** The rids of the foods added and of `others`, in name order; undefined when a name or id needs the order by code point. */
  order(others: readonly NamedFood[]): number[] | undefined {
    if (!this.usable || others.some(needsCodePoints)) return undefined;
    this.closeRun();
    if (others.length > 0) this.runs.push(sorted(others));
    return merge(this.runs);
  }

  private closeRun(): void {
    if (this.current.length === 0) return;
    this.runs.push(sorted(this.current));
    this.current = [];
  }
}

/** Foods in name order, through their keys sorted by the engine's own string comparison (no comparator calls). */
function sorted(foods: readonly NamedFood[]): NamedFood[] {
  const index = new Map<number, NamedFood>(foods.map((f) => [f.rid, f]));
  return foods.map(nameKey).sort().map((key) => index.get(ridOfKey(key))!);
}

/** (name, id) order by UTF-16 unit, which is code point order without units from U+D800 on. */
function before(a: NamedFood, b: NamedFood): boolean {
  return a.name < b.name || (a.name === b.name && a.id < b.id);
}

/** The rids of sorted runs, merged in name order (a binary heap of the runs by their next food). */
function merge(runs: readonly NamedFood[][]): number[] {
  const out: number[] = [];
  const at = new Uint32Array(runs.length);
  const heap = runs.flatMap((run, r) => (run.length > 0 ? [r] : []));
  const head = (r: number): NamedFood => runs[r]![at[r]!]!;
  const down = (from: number): void => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const r = l + 1;
      const least = r < heap.length && before(head(heap[r]!), head(heap[l]!)) ? r : l;
      if (!before(head(heap[least]!), head(heap[i]!))) return;
      [heap[i], heap[least]] = [heap[least]!, heap[i]!];
      i = least;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const r = heap[0]!;
    out.push(head(r).rid);
    if (++at[r]! === runs[r]!.length) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    down(0);
  }
  return out;
}
