import { guardMultilineCommands, type MultilineCommand } from '../loop/multiline-guard.js';
import type { ReplayAction } from '../trajectory/replay-actions.js';
import { isMiniSweAgentTraj } from '../trajectory/swe-formats.js';
import type { Traj } from '../trajectory/traj.schema.js';
import {
  multilineCommandsOf,
  renderBundleCall,
  shellQuote,
  type SweCommandSpec,
} from './swe-commands.js';

/**
 * How a live run of the recorded configuration turned a model answer into commands:
 * SWE-agent's `function_calling` and `thought_action` parsers, or mini-swe-agent's bash block
 * (or `bash` tool calls).
 */
export type SweActionFormat = 'function_calling' | 'thought_action' | 'mini_bash';

/** Commands whose body ends at a marker line, as SWE-agent's windowed `edit` bundle declares. */
export const SWE_AGENT_MULTILINE_COMMANDS: readonly MultilineCommand[] = [
  { name: 'edit', endName: 'end_of_edit' },
];

/** mini-swe-agent's submission markers: the first line of the command's output. */
export const MINI_SUBMIT_MARKERS = [
  'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT',
  'MINI_SWE_AGENT_FINAL_OUTPUT',
] as const;

function objectAt(value: unknown, key: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return {};
  const inner = (value as Record<string, unknown>)[key];
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {};
}

function configuredParser(traj: Traj): string | null {
  if (traj.replay_config === null) return null;
  try {
    const config = JSON.parse(traj.replay_config) as unknown;
    const type = objectAt(objectAt(objectAt(config, 'agent'), 'tools'), 'parse_function')['type'];
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}

/**
 * The parser a live run of this file used: mini-swe-agent's for its files, else the
 * `parse_function.type` of `replay_config`, else function calling when the answers carry tool
 * calls (SWE-agent 1.x's default) and thought-action when they do not (0.x's).
 */
export function sweActionFormatOf(traj: Traj, answers: readonly ReplayAction[]): SweActionFormat {
  if (isMiniSweAgentTraj(traj)) return 'mini_bash';
  const configured = configuredParser(traj);
  if (configured === 'function_calling' || configured === 'thought_action') return configured;
  return answers.some((answer) => (answer.toolCalls?.length ?? 0) > 0)
    ? 'function_calling'
    : 'thought_action';
}

const OPEN_FENCE = /^```\S*\s*$/;
const BARE_FENCE = /^```\s*$/;

/** The fenced blocks of a message that are not nested in another, with their language tags. */
function fencedBlocks(text: string): { tag: string; body: string }[] {
  const blocks: { tag: string; body: string }[] = [];
  let open: { tag: string; start: number; depth: number } | null = null;
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (open === null) {
      if (OPEN_FENCE.test(line)) open = { tag: line.slice(3).trim(), start: index + 1, depth: 1 };
      return;
    }
    if (!BARE_FENCE.test(line)) {
      if (OPEN_FENCE.test(line)) open.depth += 1;
      return;
    }
    open.depth -= 1;
    if (open.depth > 0) return;
    blocks.push({ tag: open.tag, body: lines.slice(open.start, index).join('\n') });
    open = null;
  });
  return blocks;
}

/** SWE-agent's `thought_action` parser: the action is the last fenced block. */
export function lastFencedBlock(text: string): string | null {
  return fencedBlocks(text).at(-1)?.body ?? null;
}

function argumentsOf(call: Record<string, unknown>): {
  name: string;
  args: Record<string, unknown>;
} {
  const fn = objectAt(call, 'function');
  const raw = fn['arguments'];
  let args: unknown = raw;
  if (typeof raw === 'string') {
    try {
      args = JSON.parse(raw) as unknown;
    } catch {
      args = {};
    }
  }
  const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  return { name: typeof fn['name'] === 'string' ? fn['name'] : '', args: record };
}

/**
 * A tool call as the shell command SWE-agent runs: `bash` runs its `command` as is; a command
 * of a known bundle through its `signature` and `argument_format`s (see `renderBundleCall`);
 * any other tool is its name followed by its arguments, strings quoted like `shlex.quote`.
 */
export function renderToolCall(
  call: Record<string, unknown>,
  commands: readonly SweCommandSpec[] = [],
): string {
  const { name, args } = argumentsOf(call);
  if (name === 'bash' && typeof args['command'] === 'string') return args['command'];
  const known = commands.find((command) => command.name === name);
  if (known !== undefined) return renderBundleCall(known, args);
  const values = Object.values(args)
    .filter((value) => value !== null && value !== undefined)
    .map((value) => (typeof value === 'string' ? shellQuote(value) : JSON.stringify(value)));
  return [name, ...values].join(' ').trim();
}

/**
 * The commands a live run of `format` took from one recorded answer: the tool call(s) rendered,
 * or the (last / bash) fenced block; SWE-agent's multi-line commands get their heredoc marker
 * (`edit 4:4 << 'end_of_edit'`). Falls back to the recorded `action` when the answer does not
 * parse (the run's parser accepted it, so the record is right).
 */
export function commandsOfAnswer(
  answer: ReplayAction,
  format: SweActionFormat,
  commands: readonly SweCommandSpec[] = [],
): string[] {
  const calls = answer.toolCalls ?? [];
  if (format === 'mini_bash') {
    const blocks = fencedBlocks(answer.response).filter((b) =>
      ['bash', 'mswea_bash_command'].includes(b.tag),
    );
    const found =
      calls.length > 0 ? calls.map((c) => renderToolCall(c)) : blocks.map((b) => b.body);
    return found.length > 0 ? found : answer.action === null ? [] : [answer.action];
  }
  const parsed =
    format === 'function_calling'
      ? calls.length === 1 && calls[0] !== undefined
        ? renderToolCall(calls[0], commands)
        : null
      : lastFencedBlock(answer.response);
  const command = parsed ?? answer.action;
  if (command === null) return [];
  const multiline = [...SWE_AGENT_MULTILINE_COMMANDS, ...multilineCommandsOf(commands)];
  const unique = multiline.filter((m, i) => multiline.findIndex((o) => o.name === m.name) === i);
  const guarded = guardMultilineCommands(command, unique);
  return [guarded.ok ? guarded.action : command];
}
