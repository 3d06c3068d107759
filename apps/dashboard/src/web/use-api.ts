import { useEffect, useState } from 'react';
import { api } from './api.js';

/** An API read as a page shows it: still loading, refused, or its answer. */
export type Loaded<T> =
  { state: 'loading' } | { state: 'failed'; error: unknown } | { state: 'done'; data: T };

/**
 * Reads `path` (null: nothing to read), and again when the path changes (a page that must read
 * again remounts).
 * Each answer is kept with the read it answers, so a page shows "loading" until the answer to
 * its current read arrives, and an answer to an older read is never shown.
 */
export function useApi<T>(path: string | null): Loaded<T> {
  const [answer, setAnswer] = useState<{ path: string; loaded: Loaded<T> } | null>(null);
  useEffect(() => {
    if (path === null) return;
    let current = true;
    api<T>(path).then(
      (data) => current && setAnswer({ path, loaded: { state: 'done', data } }),
      (error: unknown) => current && setAnswer({ path, loaded: { state: 'failed', error } }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return answer && answer.path === path ? answer.loaded : { state: 'loading' };
}
