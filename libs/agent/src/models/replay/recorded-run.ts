import { AppError } from '@caravel/errors';
import { z } from 'zod';
import type { CannedResponse, CannedToolCall } from '../canned/canned-response.js';
import {
  parseStructuredText,
  readTextFile,
  validateStructured,
  type StructuredFile,
} from '../canned/structured-file.js';

/** Our shell tool: SWE-agent actions are bash commands and replay as calls to it. */
export const REPLAY_SHELL_TOOL = 'execute';
/** Our submission tool: SWE-agent's `submit` action replays as a call to it. */
export const REPLAY_SUBMIT_TOOL = 'submit';

const textPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const contentSchema = z.union([z.string(), z.array(textPart), z.null()]).optional();

const historyItemSchema = z.looseObject({
  role: z.string(),
  content: contentSchema,
  thought: z.string().nullish(),
  action: z.string().nullish(),
  is_demo: z.boolean().nullish(),
});

const stepSchema = z.looseObject({
  action: z.string(),
  thought: z.string().nullish(),
  response: z.string().nullish(),
});

const trajSchema = z.looseObject({
  trajectory: z.array(stepSchema).optional(),
  history: z.array(historyItemSchema).optional(),
});

const recordedMessageSchema = z.strictObject({
  content: z.string().nullish(),
  tool_calls: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        args: z.record(z.string(), z.unknown()).default({}),
        id: z.string().min(1).optional(),
      }),
    )
    .optional(),
});

function textOf(content: z.infer<typeof contentSchema>): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/**
 * The tool calls a SWE-agent action stands for: `submit` → our submit tool; `exit` and an empty
 * action → none (the model ended or produced nothing runnable); anything else → one shell call.
 */
export function toolCallsForAction(action: string): CannedToolCall[] {
  const command = action.trim();
  if (command === '' || command === 'exit') return [];
  if (command === 'submit' || command.startsWith('submit ')) {
    return [{ name: REPLAY_SUBMIT_TOOL, args: {} }];
  }
  return [{ name: REPLAY_SHELL_TOOL, args: { command } }];
}

function fromHistory(parsed: StructuredFile, history: z.infer<typeof historyItemSchema>[]) {
  const answers: CannedResponse[] = [];
  history.forEach((item, i) => {
    if (item.role !== 'assistant' || item.is_demo === true) return;
    answers.push({
      origin: parsed.positionOf(['history', i]),
      content: item.thought ?? textOf(item.content),
      toolCalls: toolCallsForAction(item.action ?? ''),
    });
  });
  return answers;
}

function fromTrajectory(parsed: StructuredFile, steps: z.infer<typeof stepSchema>[]) {
  return steps.map<CannedResponse>((step, i) => ({
    origin: parsed.positionOf(['trajectory', i]),
    content: step.thought ?? step.response ?? '',
    toolCalls: toolCallsForAction(step.action),
  }));
}

function notATrajectory(parsed: StructuredFile, why: string): AppError {
  return new AppError(
    'BAD_REQUEST',
    `${parsed.positionOf([])}: not a trajectory: ${why}; expected a SWE-agent .traj (an object ` +
      'with a "history" or "trajectory" list) or a list of recorded assistant messages ' +
      '({ content, tool_calls })',
    { details: { file: parsed.file } },
  );
}

/**
 * Extracts the assistant answers of a recorded run, in order. A SWE-agent `.traj` replays its
 * `history` assistant items (demonstrations skipped), or its `trajectory` steps when it has no
 * history; a plain list is read as our own recorded `{ content, tool_calls }` messages.
 */
export function recordedAnswers(parsed: StructuredFile): CannedResponse[] {
  if (Array.isArray(parsed.value)) {
    const messages = validateStructured(parsed, z.array(recordedMessageSchema), 'recorded run');
    return messages.map((message, i) => ({
      origin: parsed.positionOf([i]),
      content: message.content ?? '',
      toolCalls: message.tool_calls ?? [],
    }));
  }
  if (parsed.value === null || typeof parsed.value !== 'object') {
    throw notATrajectory(parsed, 'the file holds a single value');
  }
  const traj = validateStructured(parsed, trajSchema, 'SWE-agent trajectory');
  const history = traj.history ?? [];
  const answers = history.length > 0 ? fromHistory(parsed, history) : [];
  const chosen = answers.length > 0 ? answers : fromTrajectory(parsed, traj.trajectory ?? []);
  if (chosen.length === 0) throw notATrajectory(parsed, 'it records no assistant step');
  return chosen;
}

/** Parses a recorded run from text; errors name the file and position. */
export function parseRecordedRun(file: string, text: string): CannedResponse[] {
  return recordedAnswers(parseStructuredText(file, text));
}

/** Reads and parses a recorded run (`.traj` or our JSON list). */
export function loadRecordedRun(file: string): CannedResponse[] {
  return parseRecordedRun(file, readTextFile(file));
}
