import { Button, Table, Textarea, TextInput } from '@mantine/core';
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { userInstructionsResponse } from '../../api/schemas.js';
import { api, type Me } from '../api.js';
import { formText } from '../filters.js';
import { useApi } from '../use-api.js';
import { Async, AsyncTable, when, Section } from '../ui.js';
import { useFormStatus } from './fields.js';

type Instructions = z.output<typeof userInstructionsResponse>;

const path = (identity: string) => `/api/instructions/${encodeURIComponent(identity)}`;

/** A form over one person's instructions: save replaces them, Forget removes them. */
function InstructionsForm(props: {
  label: string;
  saved: Instructions | null;
  reload: () => void;
}) {
  const { saved, reload } = props;
  const { status, say, fail } = useFormStatus();
  const identityOf = (form: HTMLFormElement) =>
    saved?.identity ?? formText(new FormData(form), 'identity').trim();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body = { instructions: formText(data, 'instructions') };
    api<Instructions>(path(identityOf(event.currentTarget)), { method: 'PUT', body }).then(
      (done) => (saved ? say(`Saved ${when(done.updatedAt)}.`) : reload()),
      fail,
    );
  };
  const forget = (form: HTMLFormElement | null) => {
    if (form) api(path(identityOf(form)), { method: 'DELETE' }).then(reload, fail);
  };
  return (
    <form aria-label={props.label} onSubmit={submit}>
      {!saved && <TextInput name="identity" label="Person" placeholder="github:octocat" required />}
      <Textarea
        name="instructions"
        label="Instructions"
        rows={4}
        maxLength={4000}
        defaultValue={saved?.instructions ?? ''}
      />
      <Button type="submit">Save instructions</Button>
      {saved?.updatedAt && (
        <Button
          variant="subtle"
          name="forget"
          onClick={(event) => forget(event.currentTarget.closest('form'))}
        >
          Forget them
        </Button>
      )}
      {status}
    </form>
  );
}

/** Admins: everyone's instructions, and a form for anyone's. */
function Everyone({ reload }: { reload: () => void }) {
  const rows = useApi<Instructions[]>('/api/instructions');
  return (
    <Section id="everyone-title" title="Everyone's instructions (admins)" order={3}>
      <AsyncTable
        loaded={rows}
        empty="Nobody keeps standing instructions yet."
        className="instructions"
        columns={['Person', 'Instructions', 'Changed']}
        row={(row) => (
          <Table.Tr key={row.identity}>
            <Table.Td>{row.identity}</Table.Td>
            <Table.Td>{row.instructions}</Table.Td>
            <Table.Td>{when(row.updatedAt)}</Table.Td>
          </Table.Tr>
        )}
      />
      <InstructionsForm label="another person's instructions" saved={null} reload={reload} />
    </Section>
  );
}

/**
 * Standing instructions the agent attaches to a person's requests (repository instructions and
 * AGENTS.md win on conflict): the person's own, and for admins everyone's.
 */
export function InstructionsSection({ me, reload }: { me: Me | null; reload: () => void }) {
  const own = useApi<Instructions>(me ? path(`github:${me.login}`) : null);
  return (
    <Section
      id="instructions-title"
      title="Standing instructions"
      note="Attached to your requests; repository instructions and AGENTS.md win on conflict."
    >
      {me ? (
        <Async loaded={own}>
          {(saved) => <InstructionsForm label="your instructions" saved={saved} reload={reload} />}
        </Async>
      ) : (
        <p>Sign in to keep standing instructions.</p>
      )}
      {me?.role === 'admin' && <Everyone reload={reload} />}
    </Section>
  );
}
