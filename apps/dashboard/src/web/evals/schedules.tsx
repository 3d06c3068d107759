import { Button, Code, Table, Title, useComputedColorScheme } from '@mantine/core';
import { useState } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, XAxis, YAxis } from 'recharts';
import type { z } from 'zod';
import type { evalScheduleHistoryResponse, evalScheduleResponse } from '../../api/eval-schemas.js';
import { api } from '../api.js';
import { StatusBadge } from '../threads.page.js';
import { useApi } from '../use-api.js';
import { Async, AsyncTable, counted, DataTable, ErrorText, Page, when } from '../ui.js';
import { dollars, percent, resolveText, RunLink, type EvalRun } from './eval-run.js';

type EvalSchedule = z.output<typeof evalScheduleResponse>;
type History = z.output<typeof evalScheduleHistoryResponse>;

/** A run's score: its resolve rate (Harbor), or its F1 (a review set), as a fraction. */
function score(run: EvalRun): number | null {
  return run.kind === 'review' ? (run.review?.f1.value ?? null) : run.resolve.rate;
}

function scoreText(run: EvalRun): string {
  const f1 = run.review?.f1;
  if (run.kind !== 'review') return resolveText(run);
  return f1 && f1.value !== null
    ? `F1 ${percent(f1.value)} [${percent(f1.low)}, ${percent(f1.high)}]`
    : '—';
}

function ScheduleRow({ schedule }: { schedule: EvalSchedule }) {
  return (
    <Table.Tr>
      <Table.Td>
        <a href={`#/evals/schedules/${schedule.id}`}>{schedule.name}</a>
      </Table.Td>
      <Table.Td>{schedule.kind}</Table.Td>
      <Table.Td>
        {schedule.config} <Code>{schedule.model}</Code>
      </Table.Td>
      <Table.Td>{`${String(schedule.hour).padStart(2, '0')}:00 UTC`}</Table.Td>
      <Table.Td>
        <StatusBadge status={schedule.state} />
      </Table.Td>
      <Table.Td>{schedule.lastError ?? '—'}</Table.Td>
    </Table.Tr>
  );
}

/** The suites the embedded host runs each night. */
export function ScheduleList() {
  const schedules = useApi<EvalSchedule[]>('/api/evals/schedules');
  return (
    <AsyncTable
      loaded={schedules}
      empty="No suite is scheduled."
      className="schedules"
      columns={['Suite', 'Kind', 'Configuration', 'Each night at', 'State', 'Last error']}
      row={(schedule) => <ScheduleRow key={schedule.id} schedule={schedule} />}
    />
  );
}

/** The score night by night (oldest first), one image for assistive technology. */
function ScoreChart({ history }: { history: History }) {
  const dark = useComputedColorScheme('light') === 'dark';
  const points = history.runs
    .map((run) => ({ night: (run.scheduleSlot ?? run.createdAt).slice(0, 10), score: score(run) }))
    .reverse();
  const name = history.schedule.kind === 'review' ? 'F1' : 'Resolve rate';
  const last = points.at(-1);
  return (
    <figure
      className="chart"
      role="img"
      aria-labelledby="score-chart-title"
      aria-describedby="score-chart-desc"
    >
      <figcaption id="score-chart-title">{`${name} per night`}</figcaption>
      <p id="score-chart-desc" className="visually-hidden">
        {last
          ? `${counted(points.length, 'night')}; the last, ${last.night}, ${percent(last.score)}.`
          : 'No night yet.'}
      </p>
      <ResponsiveContainer width="100%" height={200}>
        <LineChart
          data={points}
          accessibilityLayer={false}
          margin={{ top: 8, right: 8, left: 8, bottom: 0 }}
        >
          <CartesianGrid stroke={dark ? '#495057' : '#ced4da'} vertical={false} />
          <XAxis
            dataKey="night"
            stroke={dark ? '#dee2e6' : '#343a40'}
            tick={{ fill: dark ? '#dee2e6' : '#343a40' }}
          />
          <YAxis
            domain={[0, 1]}
            tickFormatter={percent}
            stroke={dark ? '#dee2e6' : '#343a40'}
            tick={{ fill: dark ? '#dee2e6' : '#343a40' }}
            width={56}
          />
          <Line
            dataKey="score"
            stroke={dark ? '#74c0fc' : '#1864ab'}
            strokeWidth={2}
            isAnimationActive={false}
            connectNulls
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Admins pause or resume a scheduled suite. */
function StateButton({ schedule, changed }: { schedule: EvalSchedule; changed: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const next = schedule.state === 'active' ? 'paused' : 'active';
  const change = () =>
    api(`/api/evals/schedules/${schedule.id}`, { method: 'PUT', body: { state: next } }).then(
      changed,
      setError,
    );
  return (
    <div className="stop-control">
      <Button variant="default" onClick={() => void change()}>
        {next === 'paused' ? 'Pause' : 'Resume'}
      </Button>
      {error !== null && <ErrorText error={error} />}
    </div>
  );
}

function HistoryBody({
  history,
  admin,
  changed,
}: {
  history: History;
  admin: boolean;
  changed: () => void;
}) {
  const { schedule, runs } = history;
  return (
    <>
      <p>
        {`${schedule.kind} suite ${schedule.source}, ${schedule.config} (`}
        <Code>{schedule.model}</Code>
        {`), ${schedule.attempts} attempt(s) a task, each night at ${schedule.hour}:00 UTC · ${schedule.state}`}
      </p>
      {admin && <StateButton schedule={schedule} changed={changed} />}
      <ScoreChart history={history} />
      <Title order={2}>Nights</Title>
      <DataTable
        className="evals"
        caption={`${runs.length} run(s)`}
        columns={['Night', 'Run', 'Status', 'Score (95%)', 'Cost']}
      >
        {runs.map((run) => (
          <Table.Tr key={run.id}>
            <Table.Td>{when(run.scheduleSlot ?? run.createdAt)}</Table.Td>
            <Table.Td>
              <RunLink id={run.id} />
            </Table.Td>
            <Table.Td>{run.status}</Table.Td>
            <Table.Td>{scoreText(run)}</Table.Td>
            <Table.Td>{dollars(run.costUsd)}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}

function ScheduleHistory(props: { id: string; admin: boolean; changed: () => void }) {
  const history = useApi<History>(`/api/evals/schedules/${encodeURIComponent(props.id)}/history`);
  const title =
    history.state === 'done' ? `Scheduled suite ${history.data.schedule.name}` : 'Scheduled suite';
  return (
    <Page title={title} back={<a href="#/evals">← All evals</a>}>
      <Async loaded={history} loading="Loading its history…">
        {(data) => <HistoryBody history={data} admin={props.admin} changed={props.changed} />}
      </Async>
    </Page>
  );
}

/** A scheduled suite's history: its score night by night, and each night's run. */
export function SchedulePage({ id, admin }: { id: string; admin: boolean }) {
  const [version, setVersion] = useState(0);
  return (
    <ScheduleHistory key={version} id={id} admin={admin} changed={() => setVersion((v) => v + 1)} />
  );
}
