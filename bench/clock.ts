/**
 * A clock in milliseconds for timing one request at a time: the wall clock, or with `cpu` the
 * process's CPU time (user + system, all threads), so that on a machine shared with other work
 * the time spent waiting for a core is not counted.
 */
export function clock(cpu: boolean): () => number {
  if (!cpu) return () => performance.now();
  return () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
}
