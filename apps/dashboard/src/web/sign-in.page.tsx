import { Button, Text } from '@mantine/core';
import type { z } from 'zod';
import type { signInRefusalResponse } from '../api/schemas.js';
import { useApi } from './use-api.js';
import { Page } from './ui.js';

type Refusal = z.output<typeof signInRefusalResponse>;

/** What the page itself knows to say; any other word in its URL is not shown. */
const LOCAL_MESSAGES: Record<string, string> = {
  SIGN_OUT: 'SIGN_OUT: the dashboard did not answer.',
};

/**
 * Why a sign-in was refused: the callback seals its refusal into the URL (`?refusal=`) and the
 * dashboard opens it, so a link someone else made cannot put words on this page.
 */
function RefusalText({ sealed }: { sealed: string }) {
  const params = new URLSearchParams({ sealed });
  const refusal = useApi<Refusal>(`/api/auth/refusal?${params.toString()}`);
  if (refusal.state === 'loading') return null;
  const text =
    refusal.state === 'done'
      ? `${refusal.data.code}: ${refusal.data.message}`
      : 'The sign-in was refused, and why has expired: sign in again to see it.';
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

/** The sign-in page; a refused sign-in's reason, as the dashboard wrote it, shown as text. */
export function SignInPage({ query }: { query: URLSearchParams }) {
  const sealed = query.get('refusal');
  const local = LOCAL_MESSAGES[query.get('error') ?? ''];
  return (
    <Page title="Sign in to Caravel">
      {sealed && <RefusalText sealed={sealed} />}
      {local && (
        <p className="error" role="alert">
          {local}
        </p>
      )}
      <Text my="md">Caravel uses your GitHub account; it keeps no GitHub token.</Text>
      <Button component="a" href="/auth/github">
        Sign in with GitHub
      </Button>
    </Page>
  );
}
