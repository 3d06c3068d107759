import { AppError } from '@caravel/errors';
import { createInterface } from 'node:readline';
import { authHeaders, dashboardBase, dashboardFetch, failureText } from './dashboard-client.js';

/** Options of `caravel attach`. */
export interface AttachOptions {
  /** The dashboard's base URL (the embedded host's, or the dashboard service's). */
  url: string;
  threadId: string;
  /** Who is acting, as the thread's history and trajectory will name them. */
  as: string;
  /** The dashboard's `DASHBOARD_TOKEN`. */
  token?: string;
  /** Lines typed by the person: text is a message, `!cmd` a command, `/quit` leaves. */
  input: NodeJS.ReadableStream;
  write: (line: string) => void;
  /** How often new events are fetched (default 1 s). */
  pollMs?: number;
  /** Stops attaching (the caller's own exit). */
  signal?: AbortSignal;
}

/** One indexed event as the dashboard's API returns it. */
interface EventRow {
  /** The event's place in the thread's index: what `?after` counts. */
  position: number;
  type: string;
  runId: string | null;
  data: Record<string, unknown>;
}

const HELP = [
  "Type a message for the agent, or !<command> to run a command in the thread's sandbox.",
  "Commands run between the agent's steps and are recorded under your name. /quit leaves.",
  '/recreate gives the thread a fresh sandbox when its own was lost (the old one is kept).',
  "/stop stops the thread's run (nothing starts after it until someone writes again).",
].join('\n');

function firstLine(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : '';
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** How an event reads in the terminal, or null for events a person does not need to see. */
export function describeEvent(event: EventRow): string | null {
  const d = event.data;
  switch (event.type) {
    case 'evt.run.started':
      return (
        `run ${String(d['runId']).slice(0, 8)} started on ${String(d['runner'])}` +
        (typeof d['model'] === 'string' ? ` (${d['model']})` : '')
      );
    case 'evt.run.step': {
      const actor =
        typeof d['actor'] === 'string' && d['actor'] !== 'agent' ? ` [${d['actor']}]` : '';
      const action = firstLine(d['action']) || firstLine(d['thought']) || '(no action)';
      const observation = firstLine(d['observation']);
      return `  step ${String(d['step'])}${actor}: ${action}${observation ? `\n    → ${observation}` : ''}`;
    }
    case 'evt.run.output': {
      // The running command's output as it comes: every line, as the command printed it.
      const text = typeof d['text'] === 'string' ? d['text'].replace(/\n$/, '') : '';
      return text === '' ? null : text.replace(/^/gm, '    | ');
    }
    case 'evt.run.finished':
      return `run ${String(d['runId']).slice(0, 8)} ${String(d['outcome'])}: ${String(d['exitStatus'])}`;
    case 'evt.run.attempts_selected':
      return `attempts: ${String(d['outcome'])}, winner ${String(d['winnerIndex'])}`;
    default:
      return null;
  }
}

/** A typed line as an action, or a local instruction. */
export function parseLine(
  line: string,
): { kind: 'message' | 'command'; text: string } | 'quit' | 'help' | 'recreate' | 'stop' | null {
  const text = line.trim();
  if (text === '') return null;
  if (text === '/quit' || text === '/exit') return 'quit';
  if (text === '/help') return 'help';
  if (text === '/recreate') return 'recreate';
  if (text === '/stop') return 'stop';
  if (text.startsWith('!')) {
    const command = text.slice(1).trim();
    return command === '' ? null : { kind: 'command', text: command };
  }
  return { kind: 'message', text };
}

/**
 * `caravel attach <thread>`: follows the thread live (each step as the dashboard indexes it, a
 * person's steps marked with their name) and lets the person take part: a typed line is a message
 * for the agent, `!<command>` runs in the thread's sandbox between the agent's steps. Both enter
 * the thread's history and trajectory under the person's identity.
 */
export async function attachThread(options: AttachOptions): Promise<void> {
  const base = dashboardBase(options);
  const auth = authHeaders(options);
  const thread = await dashboardFetch(options, `/api/threads/${options.threadId}`);
  if (!thread.ok) {
    const text = await failureText(thread, options.token);
    throw new AppError(
      thread.status === 401 ? 'UNAUTHENTICATED' : 'NOT_FOUND',
      `thread ${options.threadId}: ${text}`,
    );
  }
  options.write(`attached to thread ${options.threadId} as ${options.as}\n${HELP}`);
  const done = new AbortController();
  options.signal?.addEventListener('abort', () => done.abort(), { once: true });
  const follow = followEvents(base, options, done.signal);
  const lines = createInterface({ input: options.input, terminal: false });
  lines.on('close', () => done.abort());
  done.signal.addEventListener('abort', () => lines.close(), { once: true });
  for await (const line of lines) {
    const parsed = parseLine(line);
    if (parsed === 'quit') break;
    if (parsed === 'help') options.write(HELP);
    if (parsed === null || parsed === 'help') continue;
    const headers = { 'content-type': 'application/json', ...auth };
    if (parsed === 'recreate') {
      const recreated = await fetch(`${base}/api/threads/${options.threadId}/sandbox/recreate`, {
        method: 'POST',
        headers,
      });
      options.write(
        recreated.ok
          ? `new sandbox ${((await recreated.json()) as { sandboxId: string }).sandboxId}`
          : `refused: ${await failureText(recreated, options.token)}`,
      );
      continue;
    }
    if (parsed === 'stop') {
      const stopped = await fetch(`${base}/api/threads/${options.threadId}/stop`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ author: options.as }),
      });
      options.write(
        stopped.ok
          ? 'stop requested: the run ends at its last checkpoint'
          : `refused: ${await failureText(stopped, options.token)}`,
      );
      continue;
    }
    const response = await fetch(`${base}/api/threads/${options.threadId}/actions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ author: options.as, ...parsed }),
    });
    options.write(
      response.ok
        ? parsed.kind === 'command'
          ? `queued: runs before the agent's next step`
          : 'sent'
        : `refused: ${await failureText(response, options.token)}`,
    );
  }
  done.abort();
  await follow;
}

async function followEvents(
  base: string,
  options: AttachOptions,
  signal: AbortSignal,
): Promise<void> {
  let after: number | undefined;
  while (!signal.aborted) {
    const query = after === undefined ? '' : `?after=${after}`;
    const response = await fetch(`${base}/api/threads/${options.threadId}/events${query}`, {
      signal,
      ...(options.token ? { headers: { authorization: `Bearer ${options.token}` } } : {}),
    }).catch(() => null);
    if (response?.ok) {
      for (const event of (await response.json()) as EventRow[]) {
        after = event.position;
        const text = describeEvent(event);
        if (text !== null) options.write(text);
      }
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, options.pollMs ?? 1000);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
