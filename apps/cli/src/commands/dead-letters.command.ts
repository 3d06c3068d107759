import { dashboardFetch, refusal, type DashboardTarget } from './dashboard-client.js';

/** Which dead letters a command acts on (none given: every one, for a list). */
export interface DeadLetterFilter {
  ids?: string[];
  consumer?: string;
  /** ISO 8601 times, as the dashboard takes them. */
  since?: string;
  until?: string;
}

/** One dead letter as the dashboard lists it. */
export interface ListedDeadLetter {
  id: string;
  stream: string;
  consumer: string;
  subject: string;
  deliveries: number;
  reason: string;
  recordedAt: string;
  replayedAt: string | null;
}

/** What a replay did with one letter. */
export interface ReplayedDeadLetter {
  id: string;
  consumer: string;
  subject: string;
  outcome: 'replayed' | 'already-replayed' | 'expired';
}

function query(filter: DeadLetterFilter): string {
  const params = new URLSearchParams();
  if (filter.consumer) params.set('consumer', filter.consumer);
  if (filter.since) params.set('since', filter.since);
  if (filter.until) params.set('until', filter.until);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function oneLine(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** The lines `caravel dead-letters list` prints: one per letter, then a count. */
export function describeDeadLetters(letters: readonly ListedDeadLetter[]): string[] {
  if (letters.length === 0) return ['no dead letters'];
  const lines = letters.map((letter) => {
    const replayed = letter.replayedAt ? `  (replayed ${letter.replayedAt})` : '';
    return [
      `${letter.id}${replayed}`,
      `  ${letter.recordedAt}  ${letter.subject}, ${letter.deliveries} deliveries`,
      `  ${oneLine(letter.reason)}`,
    ].join('\n');
  });
  const waiting = letters.filter((letter) => !letter.replayedAt).length;
  return [...lines, `${letters.length} dead letters, ${waiting} not replayed`];
}

/** The lines `caravel dead-letters replay` prints. */
export function describeReplays(replays: readonly ReplayedDeadLetter[]): string[] {
  if (replays.length === 0) return ['no dead letter matched: nothing replayed'];
  const said = {
    replayed: 'handed back to its consumer',
    'already-replayed': 'already replayed before: nothing done',
    expired: 'its message has left the stream (past its max age): cannot be replayed',
  } as const;
  const lines = replays.map((replay) => `${replay.id}: ${said[replay.outcome]}`);
  const replayed = replays.filter((replay) => replay.outcome === 'replayed').length;
  return [...lines, `${replayed} of ${replays.length} replayed`];
}

/** `caravel dead-letters list`: the dead letters the filter selects, oldest first. */
export async function listDeadLetters(
  target: DashboardTarget,
  filter: DeadLetterFilter,
): Promise<ListedDeadLetter[]> {
  const response = await dashboardFetch(target, `/api/dead-letters${query(filter)}`);
  if (!response.ok) throw await refusal(response, target, 'dead letters');
  const { deadLetters } = (await response.json()) as { deadLetters: ListedDeadLetter[] };
  return filter.ids ? deadLetters.filter((letter) => filter.ids?.includes(letter.id)) : deadLetters;
}

/**
 * `caravel dead-letters replay`: hands the selected letters back to their consumers. `all` must
 * be said to replay every one; the dashboard refuses an empty selection.
 */
export async function replayDeadLetters(
  target: DashboardTarget,
  selection: DeadLetterFilter & { all?: boolean },
): Promise<ReplayedDeadLetter[]> {
  const response = await dashboardFetch(target, '/api/dead-letters/replay', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(selection),
  });
  if (!response.ok) throw await refusal(response, target, 'replay');
  return ((await response.json()) as { replays: ReplayedDeadLetter[] }).replays;
}
