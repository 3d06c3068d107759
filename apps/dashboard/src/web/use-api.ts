import { useEffect, useState } from 'react';
import { api } from './api.js';

/** An API read as a page shows it: still loading, refused, or its answer. */
export type Loaded<T> =
  { state: 'loading' } | { state: 'failed'; error: unknown } | { state: 'done'; data: T };

/**
 * Reads `path` (null: nothing to read), and again when the path or `version` changes (a page
 * that must read again remounts, or counts up `version`).
 * Each answer is kept with the read it answers, so a page shows "loading" until the answer to
 * its current path arrives, and an answer to another path is never shown; while the same path
 * is read again, its previous answer stays.
 */
export function useApi<T>(path: string | null, version = 0): Loaded<T> {
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
  }, [path, version]);
  return answer && answer.path === path ? answer.loaded : { state: 'loading' };
}
