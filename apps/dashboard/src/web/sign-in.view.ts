import { el } from './dom.js';

/** The sign-in page; a refused sign-in's message (from the callback's redirect) shown as text. */
export function signInView(query: URLSearchParams): HTMLElement {
  const message = query.get('message');
  return el(
    'section',
    { class: 'sign-in', 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title', tabindex: -1 }, 'Sign in to Caravel'),
    message &&
      el('p', { class: 'error', role: 'alert' }, `${query.get('error') ?? 'ERROR'}: ${message}`),
    el('p', {}, 'Caravel uses your GitHub account; it keeps no GitHub token.'),
    el('a', { class: 'button primary', href: '/auth/github' }, 'Sign in with GitHub'),
  );
}
