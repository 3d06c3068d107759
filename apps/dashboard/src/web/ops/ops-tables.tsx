import { Table } from '@mantine/core';
import type { z } from 'zod';
import type { opsResponse } from '../../api/ops-schemas.js';
import { DataTable } from '../ui.js';

export type Ops = z.output<typeof opsResponse>;
type Group = Ops['byRepository'][number];

export const usd = (value: number | null) =>
  value === null ? '—' : `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 4 : 2)}`;
export const count = (value: number) => value.toLocaleString('en');
const seconds = (value: number | null) => (value === null ? '—' : `${Math.round(value)} s`);

/** A row of plain cells. */
function Row({ cells }: { cells: string[] }) {
  return (
    <Table.Tr>
      {cells.map((cell, index) => (
        <Table.Td key={index}>{cell}</Table.Td>
      ))}
    </Table.Tr>
  );
}

export function Tiles({ ops }: { ops: Ops }) {
  const t = ops.totals;
  const tiles: [string, string][] = [
    ['waiting in the queue', count(ops.queue.waiting)],
    ['running now', count(ops.queue.active)],
    ['runs', count(t.runs)],
    ['failed', count(t.failed)],
    ['model calls', count(t.modelCalls)],
    ['tokens in / out', `${count(t.inputTokens)} / ${count(t.outputTokens)}`],
    ['cost', usd(t.costUsd)],
    ['per run', usd(t.costPerRunUsd)],
    [`per merged PR (${t.pullRequestsMerged})`, usd(t.costPerMergedPullRequestUsd)],
    [`per CI fix (${t.ciFixes})`, usd(t.costPerCiFixUsd)],
    [`per accepted finding (${t.findingsAccepted})`, usd(t.costPerAcceptedFindingUsd)],
    ['p50 / p99 duration', `${seconds(t.p50Seconds)} / ${seconds(t.p99Seconds)}`],
  ];
  return (
    <ul className="tiles" aria-label="totals">
      {tiles.map(([label, value]) => (
        <li key={label}>
          <b>{value}</b>
          {label}
        </li>
      ))}
    </ul>
  );
}

export function DaysTable({ ops }: { ops: Ops }) {
  return (
    <DataTable
      className="days"
      caption="Per UTC day"
      columns={[
        'Day',
        'Runs',
        'Failed',
        'Model calls',
        'Tokens in',
        'Tokens out',
        'Cost',
        'p50',
        'p99',
      ]}
    >
      {ops.days.map((d) => (
        <Row
          key={d.day}
          cells={[d.day, count(d.runs), count(d.failed), count(d.modelCalls), count(d.inputTokens)]
            .concat([count(d.outputTokens), usd(d.costUsd), seconds(d.p50Seconds)])
            .concat([seconds(d.p99Seconds)])}
        />
      ))}
    </DataTable>
  );
}

const GROUP_COLUMNS = ['Runs', 'Failed', 'Cost', 'Per run', 'Merged PRs', 'Per merged PR'].concat([
  'CI fixes',
  'Per CI fix',
]);

export function GroupTable(props: { caption: string; first: string; groups: Group[] }) {
  const { caption, first, groups } = props;
  if (groups.length === 0) return <p>{`${caption}: nothing in this window.`}</p>;
  return (
    <DataTable className="groups" caption={caption} columns={[first, ...GROUP_COLUMNS]}>
      {groups.map((g) => (
        <Row
          key={g.key}
          cells={[g.key, count(g.runs), count(g.failed), usd(g.costUsd), usd(g.costPerRunUsd)]
            .concat([count(g.pullRequestsMerged), usd(g.costPerMergedPullRequestUsd)])
            .concat([count(g.ciFixes), usd(g.costPerCiFixUsd)])}
        />
      ))}
    </DataTable>
  );
}

/** The waiting runs, the first to be admitted first (fair share across people and repositories). */
export function QueueTable({ ops }: { ops: Ops }) {
  if (ops.queue.runs.length === 0) return <p>No run is waiting.</p>;
  return (
    <DataTable
      className="queue"
      caption="Waiting runs, the next first"
      columns={['Place', 'In its repository', 'Repository', 'Person', 'Waited', 'Thread']}
    >
      {ops.queue.runs.map((run) => (
        <Table.Tr key={run.runId}>
          <Table.Td>{`${run.position} of ${run.waiting}`}</Table.Td>
          <Table.Td>{`${run.repositoryPosition} of ${run.repositoryWaiting}`}</Table.Td>
          <Table.Td>{run.repository}</Table.Td>
          <Table.Td>{run.person}</Table.Td>
          <Table.Td>{seconds(run.waitSeconds)}</Table.Td>
          <Table.Td>
            <a href={`#/threads/${run.threadId}`}>{run.threadId.slice(0, 8)}</a>
          </Table.Td>
        </Table.Tr>
      ))}
    </DataTable>
  );
}

export function RunsTables({ ops }: { ops: Ops }) {
  return (
    <>
      <DataTable
        className="statuses"
        caption="Runs by status and exit status"
        columns={['Status', 'Exit status', 'Runs']}
      >
        {ops.statuses.map((s, index) => (
          <Row key={index} cells={[s.status, s.exitStatus ?? '—', count(s.runs)]} />
        ))}
      </DataTable>
      {ops.failures.length ? (
        <DataTable
          className="failures"
          caption="Failure reasons"
          columns={['Exit status', 'Runs', 'The latest said']}
        >
          {ops.failures.map((f, index) => (
            <Row key={index} cells={[f.exitStatus ?? '—', count(f.runs), f.latestSummary]} />
          ))}
        </DataTable>
      ) : (
        <p>No failed run in this window.</p>
      )}
    </>
  );
}
