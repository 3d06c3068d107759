/**
 * `work`'s outcome, or a rejection with `stopped()` as soon as `signal` aborts (at once when it
 * already has). Giving up does not stop `work`, which is left to end on its own: pass the signal
 * to the work too when it can stop (a killed child, an aborted fetch). Without a signal, `work`.
 * The abort listener is removed once `work` settles, so a long-lived signal gathers none.
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  stopped: () => Error,
): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    // The work may still fail later: that failure is no one's to handle once we gave up.
    work.catch(() => undefined);
    return Promise.reject(stopped());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
