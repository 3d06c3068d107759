import { Button, Text } from '@mantine/core';
import { Page } from './ui.js';

/** The sign-in page; a refused sign-in's message (from the callback's redirect) shown as text. */
export function SignInPage({ query }: { query: URLSearchParams }) {
  const message = query.get('message');
  return (
    <Page title="Sign in to Caravel">
      {message && (
        <p className="error" role="alert">{`${query.get('error') ?? 'ERROR'}: ${message}`}</p>
      )}
      <Text my="md">Caravel uses your GitHub account; it keeps no GitHub token.</Text>
      <Button component="a" href="/auth/github">
        Sign in with GitHub
      </Button>
    </Page>
  );
}
