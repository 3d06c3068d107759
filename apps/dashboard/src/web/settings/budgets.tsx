import { Button, NativeSelect, NumberInput, Table } from '@mantine/core';
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { budgetLimitResponse, budgetPauseResponse } from '../../api/schemas.js';
import { api } from '../api.js';
import { formText } from '../filters.js';
import { useApi } from '../use-api.js';
import { AsyncTable, Section, when } from '../ui.js';
import { Field, useFormStatus } from './fields.js';

type BudgetLimit = z.output<typeof budgetLimitResponse>;
type BudgetPause = z.output<typeof budgetPauseResponse>;

const dollars = (usd: number) => `$${usd.toFixed(2)}`;

function limitPath(scope: string, subject: string | null): string {
  const query =
    subject && scope !== 'team' ? `?${new URLSearchParams({ subject }).toString()}` : '';
  return `/api/budgets/${encodeURIComponent(scope)}${query}`;
}

/** Admins: the dollars one run may spend, for the team, a repository or a person. */
function BudgetForm({ reload }: { reload: () => void }) {
  const { status, fail } = useFormStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const subject = formText(data, 'subject').trim();
    const scope = formText(data, 'scope');
    const body = {
      budgetUsd: Number(formText(data, 'budgetUsd')),
      ...(subject && scope !== 'team' ? { subject } : {}),
    };
    api(`/api/budgets/${encodeURIComponent(scope)}`, { method: 'PUT', body }).then(reload, fail);
  };
  return (
    <form aria-label="set a budget" onSubmit={submit}>
      <NativeSelect name="scope" label="For" data={['team', 'repository', 'person']} />
      <Field
        name="subject"
        label="Repository or person"
        placeholder="owner/name or github:octocat"
      />
      <NumberInput
        name="budgetUsd"
        label="Dollars per run"
        min={0.01}
        step={0.5}
        decimalScale={2}
      />
      <Button type="submit">Set budget</Button>
      {status}
    </form>
  );
}

function PauseRow({ pause }: { pause: BudgetPause }) {
  const granted =
    pause.grantedUsd === null ? '—' : `${dollars(pause.grantedUsd)} by ${pause.grantedBy ?? '—'}`;
  return (
    <Table.Tr>
      <Table.Td>
        <a href={`#/threads/${pause.threadId}`}>{pause.runId.slice(0, 8)}</a>
      </Table.Td>
      <Table.Td>{`${dollars(pause.spentUsd)} of ${dollars(pause.budgetUsd)}`}</Table.Td>
      <Table.Td>{when(pause.pausedAt)}</Table.Td>
      <Table.Td>{granted}</Table.Td>
      <Table.Td>{pause.mayGrant.join(', ') || '—'}</Table.Td>
    </Table.Tr>
  );
}

/**
 * Budgets per run: every limit (the tightest that applies to a run wins) and the runs paused at
 * theirs, which a grant in the thread ("continue with $5 more") continues. Admins set and lift.
 */
export function BudgetsSection({ admin, reload }: { admin: boolean; reload: () => void }) {
  const limits = useApi<BudgetLimit[]>('/api/budgets');
  const pauses = useApi<BudgetPause[]>('/api/budgets/pauses');
  const { status, fail } = useFormStatus();
  const lift = (limit: BudgetLimit) =>
    api(limitPath(limit.scope, limit.subject), { method: 'DELETE' }).then(reload, fail);
  return (
    <Section
      id="budgets-title"
      title="Budgets per run"
      note="The tightest limit that applies to a run wins."
    >
      <AsyncTable
        loaded={limits}
        empty="No budget is set: runs spend up to RUN_BUDGET_USD."
        className="budgets"
        columns={['For', 'Dollars per run', 'Changed', ...(admin ? [''] : [])]}
        row={(limit) => (
          <Table.Tr key={`${limit.scope} ${limit.subject}`}>
            <Table.Td>
              {limit.scope === 'team' ? 'team' : `${limit.scope} ${limit.subject}`}
            </Table.Td>
            <Table.Td>{dollars(limit.budgetUsd)}</Table.Td>
            <Table.Td>{`${limit.updatedBy}, ${when(limit.updatedAt)}`}</Table.Td>
            {admin && (
              <Table.Td>
                <Button
                  variant="subtle"
                  size="compact-sm"
                  aria-label={`Lift the budget of ${limit.scope} ${limit.subject}`}
                  onClick={() => void lift(limit)}
                >
                  Lift
                </Button>
              </Table.Td>
            )}
          </Table.Tr>
        )}
      />
      {status}
      {admin && <BudgetForm reload={reload} />}
      <AsyncTable
        loaded={pauses}
        empty="No run is paused at its budget."
        className="budget-pauses"
        caption={() => 'Runs paused at their budget'}
        columns={['Run', 'Spent', 'Paused', 'Granted', 'Who may grant']}
        row={(pause) => <PauseRow key={pause.runId} pause={pause} />}
      />
    </Section>
  );
}
