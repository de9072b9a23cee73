/**
 * Background work a serving process does between requests: `steps` taken in turns of about
 * `turnMs` (at least one step a turn), each turn after the event loop has gone round
 * (`setImmediate`), so that a request waits at most for the turn under way at each of its hops.
 * Returns the milliseconds spent in turns, or undefined when `isOpen` turned false first.
 */
export async function inTurns(steps: Iterator<unknown>, isOpen: () => boolean, turnMs = 1): Promise<number | undefined> {
  let busyMs = 0;
  for (let done = false; !done;) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!isOpen()) return undefined;
    const turn = performance.now();
    do done = steps.next().done === true;
    while (!done && performance.now() - turn < turnMs);
    busyMs += performance.now() - turn;
  }
  return busyMs;
}
