import { Button, Table } from '@mantine/core';
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { identityResponse } from '../../api/schemas.js';
import { api } from '../api.js';
import { formText } from '../filters.js';
import { useApi } from '../use-api.js';
import { AsyncTable, Section } from '../ui.js';
import { Field, useFormStatus, type FieldSpec } from './fields.js';

type Identity = z.output<typeof identityResponse>;

const HANDLES: FieldSpec[] = [
  ['githubLogin', 'GitHub login', 'octocat'],
  ['slackUserId', 'Slack user id', 'U024BE7LH'],
  ['email', 'Email (Linear)', 'octocat@example.com'],
  ['linearUserId', 'Linear user id', ''],
  ['jiraAccountId', 'Jira account id', ''],
  ['displayName', 'Name', ''],
];

/** Admins: link a person's handles; the API finds the identity holding any of them. */
function LinkForm({ reload }: { reload: () => void }) {
  const { status, fail } = useFormStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body: Record<string, string> = {};
    for (const [name] of HANDLES) {
      const value = formText(data, name).trim();
      if (value) body[name] = value;
    }
    api('/api/identities', { method: 'PUT', body }).then(reload, fail);
  };
  return (
    <form aria-label="link a person's handles" onSubmit={submit}>
      {HANDLES.map(([name, label, placeholder]) => (
        <Field key={name} name={name} label={label} placeholder={placeholder} />
      ))}
      <Button type="submit">Link</Button>
      {status}
    </form>
  );
}

/**
 * The identity map (admins): who a Slack, Linear or Jira author is on GitHub — whose token acts
 * for them and whether their words are trusted.
 */
export function IdentitiesSection({ reload }: { reload: () => void }) {
  const rows = useApi<Identity[]>('/api/identities');
  const { status, fail } = useFormStatus();
  const remove = (id: string) =>
    api(`/api/identities/${encodeURIComponent(id)}`, { method: 'DELETE' }).then(reload, fail);
  return (
    <Section
      id="identities-title"
      title="Identity mappings"
      order={3}
      note="One person across sources: a Slack or Linear author acts as their GitHub login."
    >
      <AsyncTable
        loaded={rows}
        className="identities"
        empty="No one is mapped yet."
        columns={['GitHub', 'Slack', 'Email', 'Linear', 'Jira', 'Name', '']}
        row={(i) => (
          <Table.Tr key={i.id}>
            <Table.Td>{i.githubLogin ?? '—'}</Table.Td>
            <Table.Td>{i.slackUserId ?? '—'}</Table.Td>
            <Table.Td>{i.email ?? '—'}</Table.Td>
            <Table.Td>{i.linearUserId ?? '—'}</Table.Td>
            <Table.Td>{i.jiraAccountId ?? '—'}</Table.Td>
            <Table.Td>{i.displayName}</Table.Td>
            <Table.Td>
              <Button
                variant="subtle"
                size="compact-sm"
                aria-label={`remove ${i.githubLogin ?? i.displayName}'s mapping`}
                onClick={() => void remove(i.id)}
              >
                Remove
              </Button>
            </Table.Td>
          </Table.Tr>
        )}
      />
      {status}
      <LinkForm reload={reload} />
    </Section>
  );
}
