import { AppError } from '@caravel/errors';

/**
 * The texts the loop sends to the model. Each is a template with `{{name}}` placeholders;
 * rendering fails on a placeholder that has no value, so a typo never reaches the model.
 */
export interface LoopTemplates {
  /** A command's output. Vars: `observation`. */
  observation: string;
  /** A command that printed nothing. Vars: none. */
  emptyObservation: string;
  /** Output over the limit. Vars: `head`, `tail`, `elided_chars`, `elided_lines`, `max_chars`. */
  truncatedObservation: string;
  /** A command cancelled at its timeout. Vars: `command`, `timeout_seconds`, `partial_output`. */
  commandTimeout: string;
  /** An unparsable answer. Vars: `error_message`. */
  formatError: string;
  /** A blocked command. Vars: `action`, `rule`. */
  blockedAction: string;
  /** `bash -n` rejected the command. Vars: `action`, `bash_stdout`, `bash_stderr`. */
  syntaxError: string;
  /** A multi-line command without its end marker. Vars: `command`, `end_name`. */
  multilineUnterminated: string;
}

/** Caravel's default wording (our own; the shapes follow SWE-agent's templates). */
export const DEFAULT_LOOP_TEMPLATES: LoopTemplates = {
  observation: 'OBSERVATION:\n{{observation}}',
  emptyObservation: 'Your command ran successfully and did not produce any output.',
  truncatedObservation: [
    'OBSERVATION:',
    '{{head}}',
    '<response clipped: {{elided_chars}} characters ({{elided_lines}} lines) elided>',
    '{{tail}}',
    '<NOTE>The output was longer than {{max_chars}} characters. Narrow it down with head, tail,',
    'grep or sed -n, or redirect it to a file and read parts of it; do not use a pager.</NOTE>',
  ].join('\n'),
  commandTimeout: [
    "The command '{{command}}' was cancelled after {{timeout_seconds}} seconds.",
    'Commands that wait for input or run an interactive program never finish here; run long',
    'jobs in the background and write their output to a file.',
    '{{partial_output}}',
  ].join('\n'),
  formatError: [
    'Your answer could not be used: {{error_message}}',
    'Reply with a short thought and exactly one command (one tool call).',
  ].join('\n'),
  blockedAction:
    "The command '{{action}}' is not supported in this environment ({{rule}}). Use a " +
    'non-interactive alternative.',
  syntaxError: [
    'Your bash command has a syntax error and was not run.',
    'bash -n printed:',
    '{{bash_stderr}}{{bash_stdout}}',
    'Fix the command and try again.',
  ].join('\n'),
  multilineUnterminated:
    "The multi-line command '{{command}}' must end with a line containing only " +
    "'{{end_name}}'. Send it again with that line.",
};

const PLACEHOLDER = /\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi;

/**
 * Renders `template`, replacing each `{{name}}` by `vars[name]`.
 * @throws AppError BAD_REQUEST naming the first placeholder without a value.
 */
export function renderTemplate(
  template: string,
  vars: Readonly<Record<string, string | number>>,
): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = vars[name];
    if (value === undefined) {
      throw new AppError('BAD_REQUEST', `Template placeholder '{{${name}}}' has no value`, {
        details: { placeholder: name, known: Object.keys(vars) },
      });
    }
    return String(value);
  });
}
