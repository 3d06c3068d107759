import { Code, Table, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { z } from 'zod';
import type { evalProposalResponse } from '../../api/eval-schemas.js';
import { FilterForm, QueryText } from '../filters.js';
import { StatusBadge } from '../threads.page.js';
import { useApi } from '../use-api.js';
import { AsyncTable, counted, Page, when } from '../ui.js';
import { EvalRunPage, dollars, resolveText, RunLink, type EvalRun } from './eval-run.js';
import { ScheduleList, SchedulePage } from './schedules.js';

type EvalProposal = z.output<typeof evalProposalResponse>;

function RunRow({ run }: { run: EvalRun }) {
  return (
    <Table.Tr>
      <Table.Td>
        <RunLink id={run.id} /> {when(run.createdAt)}
      </Table.Td>
      <Table.Td>{run.suite}</Table.Td>
      <Table.Td>{run.config}</Table.Td>
      <Table.Td>
        <Code>{run.model}</Code>
      </Table.Td>
      <Table.Td>{run.status}</Table.Td>
      <Table.Td>{`${run.tasks} · ${run.resolvedAttempts}/${run.attempts}`}</Table.Td>
      <Table.Td>{resolveText(run)}</Table.Td>
      <Table.Td>{dollars(run.costUsd)}</Table.Td>
    </Table.Tr>
  );
}

function ProposalRow({ proposal }: { proposal: EvalProposal }) {
  const decided = proposal.status !== 'pending';
  return (
    <Table.Tr id={`proposal-${proposal.id}`}>
      <Table.Td>{when(proposal.createdAt)}</Table.Td>
      <Table.Td>{proposal.suite}</Table.Td>
      <Table.Td>
        {proposal.config} <Code>{proposal.model}</Code>
      </Table.Td>
      <Table.Td>{proposal.proposedBy}</Table.Td>
      <Table.Td>
        <StatusBadge status={proposal.status} />
      </Table.Td>
      <Table.Td>
        {decided && proposal.delta !== null
          ? `${(proposal.delta * 100).toFixed(1)} points, p = ${proposal.pValue?.toPrecision(2) ?? '—'}`
          : '—'}
      </Table.Td>
      <Table.Td>
        <RunLink id={proposal.baselineRunId} />
        {' → '}
        <RunLink id={proposal.candidateRunId} />
      </Table.Td>
      <Table.Td>{proposal.reason ?? proposal.note ?? ''}</Table.Td>
    </Table.Tr>
  );
}

/** Loads a list into its own live region: a table of its rows, or a line when it is empty. */
function Listing<T>(props: {
  path: string;
  what: [one: string, many: string];
  columns: string[];
  row: (item: T) => ReactNode;
}) {
  const [one, many] = props.what;
  const items = useApi<T[]>(props.path);
  return (
    <AsyncTable
      loaded={items}
      loading={`Loading ${many}…`}
      empty={`No ${many} recorded.`}
      className="evals"
      caption={(list) => counted(list.length, one, many)}
      columns={props.columns}
      row={props.row}
    />
  );
}

const RUN_COLUMNS = ['Run', 'Suite', 'Configuration', 'Model', 'Status', 'Tasks · resolved'].concat(
  ['Resolve rate (95%)', 'Cost'],
);

/** Recorded eval runs and the gate's proposals, the newest first. */
function EvalList({ query }: { query: URLSearchParams }) {
  const suite = query.get('suite') ?? '';
  const params = new URLSearchParams({ limit: '100', ...(suite ? { suite } : {}) }).toString();
  return (
    <Page title="Evals">
      <FilterForm key={suite} page="evals" label="filter evals" names={['suite']}>
        <QueryText query={query} name="suite" label="Suite" placeholder="suite name" />
      </FilterForm>
      <Title order={2}>Scheduled suites</Title>
      <ScheduleList />
      <Title order={2}>Proposed changes</Title>
      <Listing<EvalProposal>
        path={`/api/evals/proposals?${params}`}
        what={['proposal', 'proposals']}
        columns={[
          'Proposed',
          'Suite',
          'Configuration',
          'By',
          'Verdict',
          'Change',
          'Runs',
          'Reason',
        ]}
        row={(proposal) => <ProposalRow key={proposal.id} proposal={proposal} />}
      />
      <Title order={2}>Runs</Title>
      <Listing<EvalRun>
        path={`/api/evals/runs?${params}`}
        what={['run', 'runs']}
        columns={RUN_COLUMNS}
        row={(run) => <RunRow key={run.id} run={run} />}
      />
    </Page>
  );
}

/**
 * `#/evals[?suite=…]` (scheduled suites, runs and proposals), `#/evals/runs/<id>` (one run by
 * task) or `#/evals/schedules/<id>` (a scheduled suite night by night).
 */
export function EvalsPage(props: { path: string[]; query: URLSearchParams; admin: boolean }) {
  const [kind, id] = props.path;
  if (kind === 'runs' && id) return <EvalRunPage id={id} />;
  if (kind === 'schedules' && id) return <SchedulePage id={id} admin={props.admin} />;
  return <EvalList query={props.query} />;
}
