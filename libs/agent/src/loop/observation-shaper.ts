import { AppError } from '@caravel/errors';
import { DEFAULT_LOOP_TEMPLATES, renderTemplate, type LoopTemplates } from './loop-templates.js';

/** What running one command gave back. */
export type CommandResult =
  | { timedOut: false; output: string }
  | { timedOut: true; command: string; timeoutSeconds: number; partialOutput?: string };

/** Which part of an over-long output the model sees. */
export type TruncationMode = 'head' | 'head_tail';

/** How observations are shaped. */
export interface ObservationShapingConfig {
  /** Outputs longer than this many characters are truncated (SWE-agent's default: 100 000). */
  maxChars: number;
  /** `head` keeps the first `maxChars` characters; `head_tail` keeps half from each end. */
  mode: TruncationMode;
  templates: LoopTemplates;
}

/** SWE-agent's defaults: 100 000 characters, keep the head. */
export const DEFAULT_SHAPING: ObservationShapingConfig = {
  maxChars: 100_000,
  mode: 'head',
  templates: DEFAULT_LOOP_TEMPLATES,
};

/** The text the model sees for one command, and how it was derived. */
export interface ShapedObservation {
  kind: 'output' | 'empty' | 'truncated' | 'timeout';
  text: string;
  /** Characters of the output that the model does not see. */
  elidedChars: number;
  /** Lines of the output that the model does not see in full. */
  elidedLines: number;
}

function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

/** Lines shown in full by `head`: every line whose newline falls inside it. */
function fullLinesInHead(head: string): number {
  return head.split('\n').length - 1;
}

/** Lines shown in full by the last `tailChars` characters of `text`. */
function fullLinesInTail(text: string, tailChars: number): number {
  if (tailChars === 0) return 0;
  const start = text.length - tailChars;
  const tail = text.slice(start);
  const startsAtLine = start === 0 || text[start - 1] === '\n';
  return startsAtLine ? countLines(tail) : Math.max(0, countLines(tail) - 1);
}

function truncate(output: string, config: ObservationShapingConfig): ShapedObservation {
  const headChars = config.mode === 'head' ? config.maxChars : Math.ceil(config.maxChars / 2);
  const tailChars = config.mode === 'head' ? 0 : config.maxChars - headChars;
  const head = output.slice(0, headChars);
  const tail = tailChars === 0 ? '' : output.slice(output.length - tailChars);
  const elidedChars = output.length - head.length - tail.length;
  const shownLines = fullLinesInHead(head) + fullLinesInTail(output, tailChars);
  const elidedLines = countLines(output) - shownLines;
  const text = renderTemplate(config.templates.truncatedObservation, {
    head,
    tail,
    elided_chars: elidedChars,
    elided_lines: elidedLines,
    max_chars: config.maxChars,
  });
  return { kind: 'truncated', text, elidedChars, elidedLines };
}

/** Shapes an output that is not a timeout: empty, truncated, or passed through the template. */
export function shapeOutput(
  output: string,
  config: ObservationShapingConfig = DEFAULT_SHAPING,
): ShapedObservation {
  if (!Number.isInteger(config.maxChars) || config.maxChars < 1) {
    throw new AppError(
      'CONFIG_INVALID',
      `Observation limit must be a positive integer, got ${config.maxChars}`,
    );
  }
  if (output.trim() === '') {
    return {
      kind: 'empty',
      text: renderTemplate(config.templates.emptyObservation, {}),
      elidedChars: 0,
      elidedLines: 0,
    };
  }
  if (output.length > config.maxChars) return truncate(output, config);
  const text = renderTemplate(config.templates.observation, { observation: output });
  return { kind: 'output', text, elidedChars: 0, elidedLines: 0 };
}

/**
 * Shapes the result of one command into the message the model sees next. A timeout becomes the
 * timeout message (with any partial output shaped and appended); otherwise see {@link shapeOutput}.
 */
export function shapeObservation(
  result: CommandResult,
  config: ObservationShapingConfig = DEFAULT_SHAPING,
): ShapedObservation {
  if (!result.timedOut) return shapeOutput(result.output, config);
  const partial = result.partialOutput ?? '';
  const shapedPartial = partial.trim() === '' ? null : shapeOutput(partial, config);
  const text = renderTemplate(config.templates.commandTimeout, {
    command: result.command,
    timeout_seconds: result.timeoutSeconds,
    partial_output:
      shapedPartial === null ? '' : `Output before it was cancelled:\n${shapedPartial.text}`,
  }).trimEnd();
  return {
    kind: 'timeout',
    text,
    elidedChars: shapedPartial?.elidedChars ?? 0,
    elidedLines: shapedPartial?.elidedLines ?? 0,
  };
}
