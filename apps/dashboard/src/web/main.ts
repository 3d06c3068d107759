import { api, ApiError, type AuthStatus, type Me } from './api.js';
import { el, show } from './dom.js';
import { errorView } from './errors.js';
import { evalsView } from './evals.view.js';
import { opsView } from './ops.view.js';
import { reviewsView } from './reviews.view.js';
import { settingsView } from './settings.view.js';
import { signInView } from './sign-in.view.js';
import { threadView, type Cleanup } from './thread.view.js';
import { threadsView } from './threads.view.js';

const main = document.getElementById('app') as HTMLElement;
const account = document.getElementById('account') as HTMLElement;
let cleanup: Cleanup = () => undefined;
let me: Me | null = null;
let auth: AuthStatus = { signInEnabled: false, signedIn: false };

/** The route in the URL's hash: `#/threads?repo=…` is `threads` with that query. */
function route(): { path: string[]; query: URLSearchParams } {
  const [path = '', query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean), query: new URLSearchParams(query) };
}

function signOutButton(): HTMLElement {
  return el(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: () => {
        api('/auth/sign-out', { method: 'POST' }).then(
          () => location.assign('/#/sign-in'),
          (error: unknown) => show(main, errorView(error)),
        );
      },
    },
    'Sign out',
  );
}

function renderAccount(): void {
  if (me)
    show(
      account,
      el('span', {}, `${me.login}${me.role === 'admin' ? ' (admin)' : ''}`),
      ' ',
      signOutButton(),
    );
  else
    show(
      account,
      auth.signInEnabled
        ? el('a', { href: '#/sign-in' }, 'Sign in')
        : el('span', { class: 'note' }, 'sign-in not configured'),
    );
}

function render(): void {
  cleanup();
  cleanup = () => undefined;
  const { path, query } = route();
  const [page = 'threads', id] = path;
  if (auth.signInEnabled && !auth.signedIn && page !== 'sign-in') {
    location.replace('#/sign-in');
    return;
  }
  if (page === 'sign-in') show(main, signInView(query));
  else if (page === 'threads' && id) {
    const live = threadView(id);
    cleanup = live.cleanup;
    show(main, live.view);
  } else if (page === 'reviews') show(main, reviewsView(path.slice(1), query));
  else if (page === 'ops') show(main, opsView(query));
  else if (page === 'evals') show(main, evalsView(path.slice(1), query));
  else if (page === 'settings') show(main, settingsView(me, render));
  else show(main, threadsView(query));
  for (const link of document.querySelectorAll('nav a')) {
    const current = link.getAttribute('href') === `#/${page}`;
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.getElementById('page-title')?.focus();
}

async function boot(): Promise<void> {
  auth = await api<AuthStatus>('/api/auth');
  if (auth.signedIn) {
    me = await api<Me>('/api/me').catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    });
  }
  renderAccount();
  window.addEventListener('hashchange', render);
  render();
}

boot().catch((error: unknown) => show(main, errorView(error)));
