import { Button, Table, Textarea } from '@mantine/core';
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { repositoryInstructionsResponse, teamDefaultsResponse } from '../../api/schemas.js';
import { api } from '../api.js';
import { formText } from '../filters.js';
import { useApi } from '../use-api.js';
import { IdentitiesSection } from './identities.js';
import { Async, AsyncTable, when, Section } from '../ui.js';
import {
  Choice,
  chosen,
  Field,
  Fields,
  nullables,
  useFormStatus,
  type FieldSpec,
} from './fields.js';

type TeamDefaults = z.output<typeof teamDefaultsResponse>;
type RepositoryInstructions = z.output<typeof repositoryInstructionsResponse>;

const ENV = 'the environment’s';
const FIELDS: FieldSpec[] = [
  ['model', 'Model', `${ENV} CARAVEL_MODEL`],
  ['reasoningEffort', 'Reasoning effort', "the model's default"],
  ['fallbackModel', 'Fallback model', `${ENV} CARAVEL_FALLBACK_MODEL`],
  ['subagentModel', 'Subagent model', "CARAVEL_SUBAGENT_MODEL, else the run's"],
];

/** The team's defaults: a blank field leaves the platform's configuration in force. */
function TeamDefaultsForm({ saved }: { saved: TeamDefaults }) {
  const { status, say, fail } = useFormStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body = {
      ...nullables(data, FIELDS),
      draftPullRequests: chosen(data, 'draftPullRequests'),
      alwaysCreatePullRequests: chosen(data, 'alwaysCreatePullRequests'),
    };
    api<TeamDefaults>('/api/team-defaults', { method: 'PUT', body }).then(
      (done) => say(`Saved ${when(done.updatedAt)} by ${done.updatedBy ?? '—'}.`),
      fail,
    );
  };
  return (
    <form aria-label="team defaults" onSubmit={submit}>
      <Fields specs={FIELDS} saved={saved} />
      <Choice
        name="draftPullRequests"
        label="Draft pull requests"
        value={saved.draftPullRequests}
        unset="yes (default)"
      />
      <Choice
        name="alwaysCreatePullRequests"
        label="Always create pull requests"
        value={saved.alwaysCreatePullRequests}
        unset={`${ENV} RUN_ALWAYS_CREATE_PRS`}
      />
      <Button type="submit">Save team defaults</Button>
      {status}
    </form>
  );
}

const instructionsPath = (repository: string) =>
  `/api/repository-instructions/${repository.split('/').map(encodeURIComponent).join('/')}`;

/** Every repository's instructions, and a form that sets one's. */
function RepositoryInstructionsSection({ reload }: { reload: () => void }) {
  const { status, fail } = useFormStatus();
  const rows = useApi<RepositoryInstructions[]>('/api/repository-instructions');
  const forget = (repository: string) =>
    api(instructionsPath(repository), { method: 'DELETE' }).then(reload, fail);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const repository = formText(data, 'repository').trim();
    const body = { instructions: formText(data, 'instructions') };
    api(instructionsPath(repository), { method: 'PUT', body }).then(reload, fail);
  };
  return (
    <Section
      id="repository-instructions-title"
      title="Repository instructions"
      order={3}
      note="Given to every coding run in the repository beside its AGENTS.md files."
    >
      <AsyncTable
        loaded={rows}
        empty="No repository has instructions yet."
        className="repository-instructions"
        columns={['Repository', 'Instructions', 'Changed', '']}
        row={(row) => (
          <Table.Tr key={row.repository}>
            <Table.Td>{row.repository}</Table.Td>
            <Table.Td>{row.instructions}</Table.Td>
            <Table.Td>{`${row.updatedBy ?? '—'}, ${when(row.updatedAt)}`}</Table.Td>
            <Table.Td>
              <Button
                variant="subtle"
                size="compact-sm"
                aria-label={`Forget the instructions of ${row.repository}`}
                onClick={() => void forget(row.repository)}
              >
                Forget
              </Button>
            </Table.Td>
          </Table.Tr>
        )}
      />
      <form aria-label="repository instructions" onSubmit={submit}>
        <Field name="repository" label="Repository" placeholder="owner/name" />
        <Textarea name="instructions" label="Instructions" rows={4} maxLength={8000} />
        <Button type="submit">Save repository instructions</Button>
        {status}
      </form>
    </Section>
  );
}

/**
 * What admins keep for the whole team: its defaults (between people's profiles and the
 * platform's configuration) and each repository's instructions. Members see only that they exist.
 */
export function TeamSection({ admin, reload }: { admin: boolean; reload: () => void }) {
  const defaults = useApi<TeamDefaults>(admin ? '/api/team-defaults' : null);
  return (
    <Section
      id="team-title"
      title="Team (admins)"
      note={
        <>
          The team&apos;s defaults apply where a thread and a person&apos;s profile say nothing;
          blank keeps the platform&apos;s configuration (CARAVEL_MODEL…).{' '}
          {!admin && 'Admins keep them, each repository’s instructions and the identity map.'}
        </>
      }
    >
      {admin && <Async loaded={defaults}>{(saved) => <TeamDefaultsForm saved={saved} />}</Async>}
      {admin && <RepositoryInstructionsSection reload={reload} />}
      {admin && <IdentitiesSection reload={reload} />}
    </Section>
  );
}
