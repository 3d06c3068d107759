import { AppError } from '@caravel/errors';
import { parse as parseYaml } from 'yaml';
import { parseTraj, parseTrajValue } from './traj-parser.js';
import type { Traj } from './traj.schema.js';

/*
 * The trajectory files SWE-agent and mini-swe-agent write, read into one `Traj`:
 * - SWE-agent 1.x `.traj` (function calling or thought-action): as is;
 * - SWE-agent 0.x `.traj`: each step's `state` is a JSON string, there is no `query`;
 * - SWE-agent demonstrations: a `.traj`, or a `.demo.yaml` with `history` and `replay_config`;
 * - mini-swe-agent `<id>.traj.json`: `{info, messages, trajectory_format}`.
 */

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** SWE-agent 0.x wrote `state` as JSON text (`"{\"open_file\": …}\n"`); 1.x writes an object. */
function stateOf(state: unknown): unknown {
  if (typeof state !== 'string') return state;
  try {
    const parsed = JSON.parse(state) as unknown;
    return isRecord(parsed) ? parsed : { raw: state };
  } catch {
    return { raw: state };
  }
}

function upgradeSteps(value: Json): Json {
  const steps = value['trajectory'];
  if (!Array.isArray(steps)) return value;
  return {
    ...value,
    trajectory: steps.map((step: unknown) =>
      isRecord(step) && 'state' in step ? { ...step, state: stateOf(step['state']) } : step,
    ),
  };
}

/** The text after a submit's patch that SWE-agent's observation template appends. */
const STATE_SUFFIX = /\n\(Open file: [^\n]*\)\n\(Current directory: [^\n]*\)\nbash-\$\s*$/;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) ? (typeof part['text'] === 'string' ? part['text'] : '') : ''))
    .join('');
}

/**
 * A demonstration records no `info`: its submission is what the last `submit` call observed,
 * without the state lines the observation template adds.
 */
function demoSubmission(history: readonly unknown[]): string | null {
  const items = history.filter(isRecord);
  const submitAt = items.findLastIndex((item) =>
    (Array.isArray(item['tool_calls']) ? item['tool_calls'] : []).some(
      (call) =>
        isRecord(call) && isRecord(call['function']) && call['function']['name'] === 'submit',
    ),
  );
  const observed = submitAt === -1 ? undefined : items[submitAt + 1];
  if (observed === undefined) return null;
  return textOf(observed['content']).replace(STATE_SUFFIX, '\n');
}

function fromDemoYaml(value: unknown, source: string): Traj {
  if (!isRecord(value) || !Array.isArray(value['history'])) {
    throw new AppError('BAD_REQUEST', `${source}: not a demonstration: no \`history\` list`);
  }
  const replayConfig = value['replay_config'];
  return parseTrajValue(
    {
      trajectory: [],
      history: value['history'],
      info: { submission: demoSubmission(value['history']), exit_status: 'submitted' },
      replay_config: isRecord(replayConfig) ? JSON.stringify(replayConfig) : null,
      environment: 'demonstration',
    },
    source,
  );
}

/** mini-swe-agent's message roles and `extra`s, as SWE-agent history items. */
function miniHistory(messages: readonly unknown[]): Json[] {
  return messages.filter(isRecord).map((message) => {
    const role = typeof message['role'] === 'string' ? message['role'] : '';
    const item: Json = { ...message, role, content: message['content'] ?? '' };
    if (role === 'system') item['message_type'] = 'system_prompt';
    else if (role === 'assistant') item['message_type'] = 'action';
    else item['message_type'] = 'observation';
    return item;
  });
}

function fromMini(value: Json, source: string): Traj {
  const info = isRecord(value['info']) ? value['info'] : {};
  const messages = Array.isArray(value['messages']) ? value['messages'] : [];
  const stats = isRecord(info['model_stats']) ? info['model_stats'] : {};
  return parseTrajValue(
    {
      trajectory_format: value['trajectory_format'] ?? 'mini-swe-agent-1',
      trajectory: [],
      history: miniHistory(messages),
      info: {
        submission: typeof info['submission'] === 'string' ? info['submission'] : null,
        exit_status: typeof info['exit_status'] === 'string' ? info['exit_status'] : null,
        model_stats: {
          instance_cost: Number(stats['instance_cost'] ?? 0),
          tokens_sent: 0,
          tokens_received: 0,
          api_calls: Number(stats['api_calls'] ?? 0),
        },
        ...(typeof info['mini_version'] === 'string' ? { mini_version: info['mini_version'] } : {}),
      },
      replay_config: isRecord(info['config']) ? JSON.stringify(info['config']) : null,
      environment: 'mini-swe-agent',
    },
    source,
  );
}

/** Whether a `Traj` was read from a mini-swe-agent file. */
export function isMiniSweAgentTraj(traj: Traj): boolean {
  const format = (traj as Json)['trajectory_format'];
  return typeof format === 'string' && format.startsWith('mini-swe-agent');
}

/**
 * Reads any trajectory file SWE-agent or mini-swe-agent writes (see the list above) as a `Traj`.
 * YAML is tried when the name ends in `.yaml`/`.yml` or the text is not a JSON object.
 * @throws AppError BAD_REQUEST naming the file and what is wrong with it.
 */
export function readTrajectoryFile(text: string, source: string): Traj {
  const yaml = /\.ya?ml$/i.test(source) || !text.trimStart().startsWith('{');
  if (yaml) {
    let value: unknown;
    try {
      value = parseYaml(text) as unknown;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new AppError('BAD_REQUEST', `${source}: not valid YAML (${message})`, { cause: error });
    }
    return fromDemoYaml(value, source);
  }
  const value = parseJsonObject(text);
  if (value === null) return parseTraj(text, source);
  if (Array.isArray(value['messages']) && !Array.isArray(value['trajectory'])) {
    return fromMini(value, source);
  }
  return parseTrajValue(upgradeSteps(value), source);
}

/** The decoded object, or null to let `parseTraj` report the JSON error with its position. */
function parseJsonObject(text: string): Json | null {
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * An instance's patch in a batch's `preds.json` (SWE-agent's and mini-swe-agent's shape:
 * `{<instance_id>: {model_name_or_path, instance_id, model_patch}}`); null when it has none.
 */
export function predictionOf(preds: unknown, instanceId: string): string | null {
  if (!isRecord(preds)) return null;
  const entry = preds[instanceId];
  if (!isRecord(entry)) return null;
  return typeof entry['model_patch'] === 'string' ? entry['model_patch'] : null;
}
