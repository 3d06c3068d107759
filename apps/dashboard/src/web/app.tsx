import { Anchor, Button, Group } from '@mantine/core';
import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { api } from './api.js';
import { parseRoute, useHash, type Route } from './route.js';
import { useSession, type Session } from './session.js';
import { SignInPage } from './sign-in.page.js';
import { ThemeToggle } from './theme-toggle.js';
import { ErrorText } from './ui.js';

// Each page is its own chunk, fetched when its route is first opened (script-src 'self' holds:
// the chunks are files of the app's own origin, loaded by module imports, never inline).
const EvalsPage = lazy(() =>
  import('./evals/evals.page.js').then((m) => ({ default: m.EvalsPage })),
);
const OpsPage = lazy(() => import('./ops/ops.page.js').then((m) => ({ default: m.OpsPage })));
const ReviewsPage = lazy(() =>
  import('./reviews/reviews.page.js').then((m) => ({ default: m.ReviewsPage })),
);
const SettingsPage = lazy(() =>
  import('./settings/settings.page.js').then((m) => ({ default: m.SettingsPage })),
);
const ReplayPage = lazy(() =>
  import('./thread/replays.js').then((m) => ({ default: m.ReplayPage })),
);
const ThreadPage = lazy(() =>
  import('./thread/thread.page.js').then((m) => ({ default: m.ThreadPage })),
);
const ThreadsPage = lazy(() =>
  import('./threads.page.js').then((m) => ({ default: m.ThreadsPage })),
);

const PAGES = [
  ['threads', 'Threads'],
  ['reviews', 'Reviews'],
  ['ops', 'Ops'],
  ['evals', 'Evals'],
  ['settings', 'Settings'],
] as const;

function signOut(): void {
  api('/auth/sign-out', { method: 'POST' }).then(
    () => location.assign('/#/sign-in'),
    () => location.assign('/#/sign-in?error=SIGN_OUT'),
  );
}

function Account({ session }: { session: Session | null }) {
  if (!session) return null;
  const { me, auth } = session;
  if (me)
    return (
      <Group gap="xs">
        <span>{`${me.login}${me.role === 'admin' ? ' (admin)' : ''}`}</span>
        <Button variant="subtle" size="compact-sm" onClick={signOut}>
          Sign out
        </Button>
      </Group>
    );
  return auth.signInEnabled ? (
    <a href="#/sign-in">Sign in</a>
  ) : (
    <span className="note">sign-in not configured</span>
  );
}

function Header({ page, session }: { page: string; session: Session | null }) {
  return (
    <header className="top">
      <Anchor className="brand" href="#/threads">
        Caravel
      </Anchor>
      <nav aria-label="main">
        {PAGES.map(([key, label]) => (
          <a key={key} href={`#/${key}`} aria-current={page === key ? 'page' : undefined}>
            {label}
          </a>
        ))}
        <a href="/api/docs">API</a>
      </nav>
      <div id="account">
        <Account session={session} />
      </div>
      <ThemeToggle />
    </header>
  );
}

function content(route: Route, session: Session): ReactNode {
  const [page = 'threads', id] = route.path;
  const rest = route.path.slice(1);
  if (page === 'sign-in') return <SignInPage query={route.query} />;
  const [, , sub, replayId] = route.path;
  if (page === 'threads' && id && sub === 'replays' && replayId)
    return <ReplayPage key={replayId} threadId={id} replayId={replayId} />;
  if (page === 'threads' && id) return <ThreadPage key={id} threadId={id} />;
  if (page === 'reviews') return <ReviewsPage path={rest} query={route.query} />;
  if (page === 'ops') return <OpsPage query={route.query} />;
  if (page === 'evals')
    return <EvalsPage path={rest} query={route.query} admin={session.me?.role === 'admin'} />;
  if (page === 'settings') return <SettingsPage me={session.me} />;
  return <ThreadsPage query={route.query} />;
}

/** The single page: the header and the route's page (routes live in the URL's hash). */
export function App() {
  const hash = useHash();
  const route = parseRoute(hash);
  const page = route.path[0] ?? 'threads';
  const { session, error } = useSession();
  const mustSignIn = !!session && session.auth.signInEnabled && !session.auth.signedIn;
  useEffect(() => {
    if (mustSignIn && page !== 'sign-in') location.replace('#/sign-in');
  }, [mustSignIn, page]);
  useEffect(() => {
    document.getElementById('page-title')?.focus();
  }, [hash, session]);
  return (
    <>
      <a className="skip" href="#app" onClick={skipToContent}>
        Skip to content
      </a>
      <Header page={page} session={session} />
      <main id="app" tabIndex={-1}>
        {error !== null && <ErrorText error={error} />}
        {!session && error === null && <p>Loading…</p>}
        {session && (!mustSignIn || page === 'sign-in') && (
          <Suspense fallback={<p aria-busy="true">Loading…</p>}>{content(route, session)}</Suspense>
        )}
      </main>
    </>
  );
}

/** The skip link moves focus without touching the hash (the hash is the route). */
function skipToContent(event: { preventDefault(): void }): void {
  event.preventDefault();
  document.getElementById('app')?.focus();
}
