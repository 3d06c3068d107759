import { Button, Table, Title } from '@mantine/core';
import { useState } from 'react';
import type { z } from 'zod';
import type { replayResponse, replaySummaryResponse } from '../../api/replay-schemas.js';
import { api } from '../api.js';
import { StatusBadge } from '../threads.page.js';
import { useApi } from '../use-api.js';
import { Async, AsyncTable, DataTable, ErrorText, Page, when } from '../ui.js';
import { DiffView } from './diff-view.js';

type ReplaySummary = z.output<typeof replaySummaryResponse>;
type Replay = z.output<typeof replayResponse>;

function verdict(replay: ReplaySummary): string {
  if (replay.error) return `failed: ${replay.error}`;
  const c = replay.comparison;
  if (!c) return '—';
  if (c.byteIdentical) return 'the same patch, byte for byte';
  return c.identical
    ? 'the same patch (line endings aside)'
    : `a different patch (${c.difference})`;
}

function counts(replay: ReplaySummary): string {
  const { replayed, matched, differed, failed } = replay.counts;
  return `${replayed}${replay.calls === null ? '' : `/${replay.calls}`} replayed · ${matched} matched · ${differed} differed · ${failed} failed`;
}

/** The thread's replays, and a button that replays its latest finished run. */
function ReplayList({ threadId, again }: { threadId: string; again: () => void }) {
  const replays = useApi<ReplaySummary[]>(`/api/threads/${threadId}/replays`);
  const [error, setError] = useState<unknown>(null);
  const request = () =>
    api(`/api/threads/${threadId}/replays`, { method: 'POST', body: {} }).then(again, setError);
  return (
    <>
      <div className="stop-control">
        <Button variant="default" onClick={() => void request()}>
          Replay the latest run
        </Button>
        <div role="status">{error !== null && <ErrorText error={error} />}</div>
      </div>
      <AsyncTable
        loaded={replays}
        empty="No replay yet."
        className="replays"
        columns={['Replay', 'By', 'Status', 'Calls', 'Verdict']}
        row={(replay) => (
          <Table.Tr key={replay.id}>
            <Table.Td>
              <a href={`#/threads/${threadId}/replays/${replay.id}`}>{when(replay.requestedAt)}</a>
            </Table.Td>
            <Table.Td>{replay.requestedBy ?? '—'}</Table.Td>
            <Table.Td>
              <StatusBadge status={replay.status} />
            </Table.Td>
            <Table.Td>{counts(replay)}</Table.Td>
            <Table.Td>{verdict(replay)}</Table.Td>
          </Table.Tr>
        )}
      />
    </>
  );
}

/**
 * Replays of the thread's runs from the event log, compared with what was recorded; read again
 * when one is asked for here and whenever `moves` (the replay events streamed so far) changes.
 */
export function ReplaysSection({ threadId, moves }: { threadId: string; moves: number }) {
  const [version, setVersion] = useState(0);
  return (
    <>
      <Title order={2}>Replays</Title>
      <ReplayList
        key={`${version}:${moves}`}
        threadId={threadId}
        again={() => setVersion((v) => v + 1)}
      />
    </>
  );
}

function Patch({ label, patch }: { label: string; patch: string | null }) {
  return (
    <details>
      <summary>{label}</summary>
      {patch ? <DiffView patch={patch} /> : <p>None.</p>}
    </details>
  );
}

function ReplayBody({ replay }: { replay: Replay }) {
  return (
    <>
      <p>
        <StatusBadge status={replay.status} />
        {` ${counts(replay)} · base ${replay.baseCommit?.slice(0, 12) ?? '—'} · ${verdict(replay)}`}
      </p>
      {replay.comparison && replay.comparison.summary && (
        <details open>
          <summary>From the recorded patch to the replayed one</summary>
          <DiffView patch={replay.comparison.summary} />
        </details>
      )}
      <Patch label="The recorded patch" patch={replay.recordedPatch} />
      <Patch label="The replayed patch" patch={replay.replayedPatch} />
      <Title order={2}>Calls</Title>
      <DataTable
        className="replay-steps"
        columns={['#', 'Step · call', 'Tool', 'Outcome', 'Where it parted']}
      >
        {replay.steps.map((step) => (
          <Table.Tr key={step.index}>
            <Table.Td>{step.index}</Table.Td>
            <Table.Td>{`${step.step} · ${step.call}`}</Table.Td>
            <Table.Td>{step.name}</Table.Td>
            <Table.Td>
              <StatusBadge status={step.outcome} />
            </Table.Td>
            <Table.Td>{step.difference ?? '—'}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </>
  );
}

/** One replay: its verdict, the patch comparison, and every replayed call with its outcome. */
export function ReplayPage({ threadId, replayId }: { threadId: string; replayId: string }) {
  const replay = useApi<Replay>(`/api/threads/${threadId}/replays/${replayId}`);
  return (
    <Page title="Replay" back={<a href={`#/threads/${threadId}`}>← The thread</a>}>
      <Async loaded={replay} loading="Loading the replay…">
        {(data) => <ReplayBody replay={data} />}
      </Async>
    </Page>
  );
}
