import { Button, Table } from '@mantine/core';
import type { FormEvent } from 'react';
import { api, type EnabledRepository } from '../api.js';
import { formText } from '../filters.js';
import { useApi } from '../use-api.js';
import { AsyncTable, when, Section } from '../ui.js';
import { Check, Field, useFormStatus } from './fields.js';

const onOff = (on: boolean) => (on ? 'on' : 'off');

function EnableForm({ reload }: { reload: () => void }) {
  const { status, fail } = useFormStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const [owner = '', name = ''] = formText(data, 'repository').trim().split('/');
    const body = {
      agent: data.get('agent') !== null,
      autoReview: data.get('autoReview') !== null,
      ciAutofix: data.get('ciAutofix') !== null,
    };
    api(`/api/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`, {
      method: 'PUT',
      body,
    }).then(reload, fail);
  };
  return (
    <form aria-label="enable a repository" onSubmit={submit}>
      <Field name="repository" label="Repository" placeholder="owner/name" />
      <Check name="agent" label="Agent" checked />
      <Check name="autoReview" label="Auto-review" checked={false} />
      <Check name="ciAutofix" label="CI autofix" checked={false} />
      <Button type="submit">Enable</Button>
      {status}
    </form>
  );
}

/** Enabled repositories: a table for everyone, and for admins a form that enables one. */
export function RepositoriesSection(props: { admin: boolean; reload: () => void }) {
  const rows = useApi<EnabledRepository[]>('/api/repositories');
  return (
    <Section id="repositories-title" title="Enabled repositories">
      <AsyncTable
        loaded={rows}
        empty="No repository enabled yet."
        columns={['Repository', 'Agent', 'Auto-review', 'CI autofix', 'Changed']}
        row={(r) => (
          <Table.Tr key={r.repository}>
            <Table.Td>{r.repository}</Table.Td>
            <Table.Td>{onOff(r.agent)}</Table.Td>
            <Table.Td>{onOff(r.autoReview)}</Table.Td>
            <Table.Td>{onOff(r.ciAutofix)}</Table.Td>
            <Table.Td>{`${r.updatedBy}, ${when(r.updatedAt)}`}</Table.Td>
          </Table.Tr>
        )}
      />
      {props.admin && <EnableForm reload={props.reload} />}
    </Section>
  );
}
