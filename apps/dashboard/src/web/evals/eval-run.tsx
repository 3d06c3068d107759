import { Code, Table } from '@mantine/core';
import type { z } from 'zod';
import type { evalRunDetailResponse, evalRunResponse } from '../../api/eval-schemas.js';
import { useApi } from '../use-api.js';
import { Async, DataTable, Page } from '../ui.js';

/** An eval run as `GET /api/evals/runs` lists it. */
export type EvalRun = z.output<typeof evalRunResponse>;
type EvalRunDetail = z.output<typeof evalRunDetailResponse>;

/** A rate (0 to 1) as a percentage with one decimal; a dash where there is none. */
export const percent = (rate: number | null) =>
  rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
export const dollars = (usd: number) => `$${usd.toFixed(2)}`;

export function RunLink({ id }: { id: string | null }) {
  return id ? <a href={`#/evals/runs/${id}`}>{id.slice(0, 8)}</a> : <>—</>;
}

export function resolveText(run: EvalRun): string {
  const { rate, low, high } = run.resolve;
  return rate === null ? '—' : `${percent(rate)} [${percent(low)}, ${percent(high)}]`;
}

function RunBody({ run }: { run: EvalRunDetail }) {
  return (
    <div>
      <p>
        {`${run.suite} under ${run.config} (`}
        <Code>{run.model}</Code>
        {`), ${run.status}: ${resolveText(run)} of ${run.attempts} attempt(s), ${dollars(run.costUsd)}`}
        {run.outDir ? ` · files in ${run.outDir}` : ''}
      </p>
      <DataTable
        className="evals"
        caption={`${run.taskResults.length} task(s)`}
        columns={['Task', 'Resolved', 'Cost', 'Model calls', 'Ended']}
      >
        {run.taskResults.map((task) => (
          <Table.Tr key={task.taskId}>
            <Table.Td>{task.taskId}</Table.Td>
            <Table.Td>{`${task.resolved}/${task.attempts}`}</Table.Td>
            <Table.Td>{dollars(task.costUsd)}</Table.Td>
            <Table.Td>{task.modelCalls}</Table.Td>
            <Table.Td>{task.exitStatuses.join(', ')}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </div>
  );
}

/** One eval run, task by task. */
export function EvalRunPage({ id }: { id: string }) {
  const run = useApi<EvalRunDetail>(`/api/evals/runs/${encodeURIComponent(id)}`);
  return (
    <Page title={`Eval run ${id.slice(0, 8)}`} back={<a href="#/evals">← All evals</a>}>
      <Async loaded={run} loading="Loading the run…">
        {(data) => <RunBody run={data} />}
      </Async>
    </Page>
  );
}
