import { Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { z } from 'zod';
import type { threadDetailResponse } from '../../api/queue-schemas.js';
import type { RunEvent } from '../api.js';
import { repositoryOf, StatusBadge } from '../threads.page.js';
import { useApi } from '../use-api.js';
import { Async, Page, when } from '../ui.js';
import { EventItem } from './event-item.js';
import { ReplaysSection } from './replays.js';
import { ActionForm, StopButton } from './take-part.js';

type ThreadDetail = z.output<typeof threadDetailResponse>;

/** The thread's pull request: its number as a link, draft or ready, and its state when known. */
function PullRequestLine({ pull }: { pull: NonNullable<ThreadDetail['pullRequest']> }) {
  const state = pull.state ? ` · ${pull.state}` : '';
  return (
    <p className="pull-request">
      {'Pull request '}
      <a href={pull.url} rel="noopener noreferrer" aria-label={`pull request #${pull.number}`}>
        {`#${pull.number}`}
      </a>
      {` · ${pull.draft ? 'draft' : 'ready for review'}${state}`}
    </p>
  );
}

function ThreadHeader({ thread, runs, queue, pullRequest }: ThreadDetail) {
  return (
    <header className="thread-header">
      <p>
        {`${thread.source} · ${repositoryOf(thread, 'no repository')} · `}
        <StatusBadge status={thread.status} />
      </p>
      {pullRequest && <PullRequestLine pull={pullRequest} />}
      {queue && (
        <p className="queue-position">
          {`Its run waits: ${queue.position} of ${queue.waiting} in the queue, ${queue.repositoryPosition} of ${queue.repositoryWaiting} in ${queue.repository}, for ${queue.waitSeconds} s so far.`}
        </p>
      )}
      <ul className="runs" aria-label="runs">
        {runs.map((run) => (
          <li key={run.id}>
            {`${run.status}${run.exitStatus ? ` (${run.exitStatus})` : ''} · ${when(run.createdAt)}`}
            {run.summary ? ` · ${run.summary}` : ''}
          </li>
        ))}
      </ul>
    </header>
  );
}

/** `shown` with `event` in its place by stream sequence (it may arrive after a later one). */
function insertBySequence(shown: RunEvent[], event: RunEvent): RunEvent[] {
  let at = shown.length;
  while (at > 0 && shown[at - 1]!.sequence > event.sequence) at -= 1;
  return [...shown.slice(0, at), event, ...shown.slice(at)];
}

/**
 * Every run event of the thread, streamed (Server-Sent Events; the browser reconnects with
 * Last-Event-ID, so nothing is missed, and an event seen twice is shown once), shown in stream
 * order. The stream closes when the page goes, or when `open` turns false (the thread could not
 * be read).
 */
function useRunEvents(threadId: string, open: boolean): RunEvent[] {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const seen = useRef(new Set<string>());
  useEffect(() => {
    if (!open) return;
    const stream = new EventSource(`/api/threads/${threadId}/stream`);
    stream.addEventListener('run-event', (message) => {
      const event = JSON.parse((message as MessageEvent<string>).data) as RunEvent;
      if (seen.current.has(event.id)) return;
      seen.current.add(event.id);
      setEvents((shown) => insertBySequence(shown, event));
    });
    return () => stream.close();
  }, [threadId, open]);
  return events;
}

/** Whether the header may have changed with `event`: a run began or ended, or a pull request opened. */
function movesHeader(event: RunEvent): boolean {
  if (event.type === 'evt.run.started' || event.type === 'evt.run.finished') return true;
  const results = event.type === 'evt.run.step' ? event.data['results'] : undefined;
  return (
    Array.isArray(results) &&
    results.some((r) => (r as { name?: unknown }).name === 'commit_and_open_pr')
  );
}

/**
 * A thread's live view: its header (read again as the stream brings a run's start or end, or the
 * step that opened its pull request), its events as they arrive, and a way to take part.
 */
export function ThreadPage({ threadId }: { threadId: string }) {
  const [headerMoves, setHeaderMoves] = useState(0);
  const loaded = useApi<ThreadDetail>(`/api/threads/${threadId}`, headerMoves);
  const events = useRunEvents(threadId, loaded.state !== 'failed');
  const moves = events.filter(movesHeader).length;
  if (moves !== headerMoves) setHeaderMoves(moves);
  const thread = loaded.state === 'done' ? loaded.data.thread : null;
  // A replay's request and its verdict arrive on the stream: the replays are read again at each.
  const replayMoves = events.filter(
    (e) => e.type === 'cmd.replay.run' || e.type === 'evt.replay.finished',
  ).length;
  return (
    <Page
      title={thread ? thread.title || `Thread ${thread.id}` : 'Thread'}
      back={<a href="#/threads">← Threads</a>}
    >
      <Async loaded={loaded}>{(data) => <ThreadHeader {...data} />}</Async>
      <Title order={2}>Events</Title>
      <ol className="events" aria-label="run events" aria-live="polite">
        {events.map((event) => (
          <EventItem key={event.id} event={event} />
        ))}
      </ol>
      <Title order={2}>Take part</Title>
      <StopButton threadId={threadId} />
      <ActionForm threadId={threadId} />
      <ReplaysSection threadId={threadId} moves={replayMoves} />
    </Page>
  );
}
