/**
 * Whether `work` settles (resolves or rejects) within `ms`; the timer is cleared either way, so
 * it never holds the process. For waits on something that may never answer: a database or a
 * worker thread that hangs rather than dies.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
