import type { Traj, TrajHistoryItem, TrajStep } from './traj.schema.js';

/** Tools whose `path` argument is the file the model is looking at (SWE-agent's `open_file`). */
const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file']);

/** SWE-agent's windowed `_state` value when no file is open. */
const NO_FILE = 'n/a';

/**
 * Where the model stood after a step: Caravel's tools address paths from the repository root,
 * so `working_dir` is `.`; `open_file` is the last file read, edited or written so far.
 */
function openFileAfter(step: TrajStep, before: string): string {
  const calls = (step.extra_info['caravel'] as { tool_calls?: unknown } | undefined)?.tool_calls;
  if (!Array.isArray(calls)) return before;
  let open = before;
  for (const call of calls as { name?: unknown; args?: Record<string, unknown> }[]) {
    const path = call.args?.['path'];
    if (typeof call.name === 'string' && FILE_TOOLS.has(call.name) && typeof path === 'string')
      open = path;
  }
  return open;
}

/** The state the run's SWE-agent tool bundles recorded for this step (their `_state`), if any. */
function recordedState(step: TrajStep): Record<string, unknown> | undefined {
  const state = (step.extra_info['caravel'] as { state?: unknown } | undefined)?.state;
  return typeof state === 'object' && state !== null && !Array.isArray(state)
    ? (state as Record<string, unknown>)
    : undefined;
}

function refusal(step: TrajStep): { message: string } | null {
  const requery = step.extra_info['requery'] as { message?: unknown } | undefined;
  return typeof requery?.message === 'string' ? { message: requery.message } : null;
}

/**
 * Fills each step's `query` (the messages sent for it) and `state` (what the run's bundles'
 * state commands recorded, else Caravel's own), from the history the builder wrote. The k-th accepted step was sent the history before the k-th assistant item; a
 * requery was sent that base plus only the latest refused answer and its message (the loop's
 * rule, see docs/trajectories.md "Requery").
 */
export function withQueriesAndState(traj: Traj): void {
  const assistantAt = traj.history.flatMap((item, index) =>
    item.role === 'assistant' && item.is_demo !== true ? [index] : [],
  );
  let accepted = 0;
  let openFile = NO_FILE;
  let previous: { step: TrajStep; message: string } | null = null;
  for (const step of traj.trajectory) {
    const base = traj.history.slice(0, assistantAt[accepted] ?? traj.history.length);
    const retry: TrajHistoryItem[] =
      previous === null
        ? []
        : [
            { role: 'assistant', content: previous.step.response, message_type: 'action' },
            { role: 'user', content: previous.message, message_type: 'user' },
          ];
    step.query = structuredClone([...base, ...retry]);
    const refused = refusal(step);
    if (refused === null) {
      accepted += 1;
      previous = null;
      openFile = openFileAfter(step, openFile);
    } else {
      previous = { step, message: refused.message };
    }
    step.state = recordedState(step) ?? { working_dir: '.', open_file: openFile };
  }
}
