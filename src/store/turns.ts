/** What `inTurns` did: the milliseconds spent in turns, and the value the steps ended with. */
export interface Turned<T> {
  readonly busyMs: number;
  readonly value: T;
}

/**
 * Background work a serving process does between requests: `steps` taken in turns of about
 * `turnMs` (at least one step a turn), each turn after the event loop has gone round
 * (`setImmediate`), so that a request waits at most for the turn under way at each of its hops.
 * Returns the milliseconds spent in turns and the steps' value, or undefined when `isOpen`
 * turned false first (the steps can then be taken on later, by another call).
 */
export async function inTurns<T>(steps: Iterator<unknown, T>, isOpen: () => boolean, turnMs = 1): Promise<Turned<T> | undefined> {
  let busyMs = 0;
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!isOpen()) return undefined;
    const turn = performance.now();
    let next: IteratorResult<unknown, T>;
    do next = steps.next();
    while (next.done !== true && performance.now() - turn < turnMs);
    busyMs += performance.now() - turn;
    if (next.done === true) return { busyMs, value: next.value };
  }
}

/**
 * The indexes 0…n-1 in the order of `compare` (stable; ties keep index order), sorted in steps
 * of about `stepCompares` comparisons, for `inTurns`: a sort too long to block a serving
 * process's event loop with (324,423 classifications by code point took ~1 s on a slow VM, in
 * one piece). A bottom-up merge sort: n log2 n comparisons at most.
 */
export function* sortedInSteps(n: number, compare: (a: number, b: number) => number, stepCompares = 4096): Generator<void, Uint32Array, void> {
  let from = Uint32Array.from({ length: n }, (_, i) => i);
  let to = new Uint32Array(n);
  let budget = stepCompares;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        to[k++] = compare(from[j]!, from[i]!) < 0 ? from[j++]! : from[i++]!;
        if (--budget === 0) {
          budget = stepCompares;
          yield;
        }
      }
      while (i < mid) to[k++] = from[i++]!;
      while (j < hi) to[k++] = from[j++]!;
    }
    [from, to] = [to, from];
  }
  return from;
}
