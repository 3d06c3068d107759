import { useSyncExternalStore } from 'react';

/** Where the app is: `#/threads?repo=…` is the path `['threads']` with that query. */
export interface Route {
  path: string[];
  query: URLSearchParams;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean), query: new URLSearchParams(query) };
}

/** The route in the URL's hash, re-read on every hash change. */
export function useHash(): string {
  return useSyncExternalStore(subscribe, () => location.hash);
}

/** Goes to `#/<page>` with the query's non-empty values (filters live in the URL). */
export function go(page: string, query: Record<string, string> = {}): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value.trim()) params.set(name, value.trim());
  location.hash = `#/${page}${params.size ? `?${params.toString()}` : ''}`;
}
