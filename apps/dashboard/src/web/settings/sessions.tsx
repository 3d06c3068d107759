import { Button, Table } from '@mantine/core';
import type { z } from 'zod';
import type { sessionResponse } from '../../api/session-routes.js';
import type { Me } from '../api.js';
import { api } from '../api.js';
import { useApi } from '../use-api.js';
import { AsyncTable, Section, when } from '../ui.js';
import { useFormStatus } from './fields.js';

type SessionRow = z.output<typeof sessionResponse>;

/** Ends every session of the person, this one too, and goes back to the sign-in page. */
function SignOutEverywhere() {
  const { status, fail } = useFormStatus();
  const signOut = () =>
    api('/api/sessions', { method: 'DELETE' }).then(() => location.assign('/#/sign-in'), fail);
  return (
    <>
      <Button variant="light" onClick={() => void signOut()}>
        Sign out everywhere
      </Button>
      {status}
    </>
  );
}

/**
 * The person's live sessions (each browser signed in: when, from where, last seen) and "sign out
 * everywhere", for a lost laptop or a cookie that may have been copied.
 */
export function SessionsSection({ me }: { me: Me | null }) {
  const rows = useApi<SessionRow[]>(me ? '/api/sessions' : null);
  if (!me) return null;
  return (
    <Section
      id="sessions-title"
      title="Your sessions"
      note="Each browser signed in as you. Signing out everywhere ends them all, this one too."
    >
      <AsyncTable
        loaded={rows}
        className="sessions"
        empty="No session is live."
        columns={['Signed in', 'Last seen', 'Expires', 'Browser', 'Address']}
        row={(s) => (
          <Table.Tr key={s.id}>
            <Table.Td>{`${when(s.createdAt)}${s.current ? ' (this browser)' : ''}`}</Table.Td>
            <Table.Td>{when(s.lastSeenAt)}</Table.Td>
            <Table.Td>{when(s.expiresAt)}</Table.Td>
            <Table.Td>{s.userAgent ?? '—'}</Table.Td>
            <Table.Td>{s.address ?? '—'}</Table.Td>
          </Table.Tr>
        )}
      />
      <SignOutEverywhere />
    </Section>
  );
}
