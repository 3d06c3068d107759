import type { MultilineCommand } from '../loop/multiline-guard.js';

/**
 * What a SWE-agent tool bundle says of one command, enough to turn a function call into the
 * shell command a live run sent (`@caravel/sandbox`'s `BundleCommand` has this shape).
 */
export interface SweCommandSpec {
  readonly name: string;
  readonly signature: string | null;
  readonly endName: string | null;
  readonly arguments: readonly { readonly name: string; readonly argumentFormat: string }[];
}

/** Python's `shlex.quote`. */
export function shellQuote(value: string): string {
  if (value === '') return "''";
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'"'"'`)}'`;
}

/** How Python (and so jinja) prints a JSON value. */
function pythonText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => (typeof item === 'string' ? `'${item}'` : pythonText(item)));
    return `[${items.join(', ')}]`;
  }
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

const JINJA_VALUE = /\{\{\s*value\s*(?:\|\s*join\(\s*(['"])(.*?)\1\s*\)\s*)?\}\}/g;

/**
 * An argument through its jinja `argument_format`: `{{value}}`, or `{{value|join(' ')}}` for
 * lists (the two forms SWE-agent's bundles use); any other text is kept as written.
 */
export function formatArgument(format: string, value: unknown): string {
  return format.replace(JINJA_VALUE, (_match, _quote, separator: string | undefined) =>
    separator !== undefined && Array.isArray(value)
      ? value.map(pythonText).join(separator)
      : pythonText(value),
  );
}

/** SWE-agent's `invoke_format`: the signature with `<arg>`/`[<arg>]` as `{arg}`, or `name {a} {b}`. */
export function invokeFormat(command: SweCommandSpec): string {
  if (command.signature !== null && command.signature !== '') {
    return command.signature.replace(/\[?<([a-zA-Z_][a-zA-Z0-9_-]+)>\]?/g, '{$1}');
  }
  return `${command.name} ${command.arguments.map((argument) => `{${argument.name}} `).join('')}`;
}

/**
 * A function call as SWE-agent's function-calling parser writes it for a bundle command:
 * each present argument quoted like `shlex.quote` when it is a string (never for `bash` or a
 * command with an end marker), then through its `argument_format`; absent ones are empty; the
 * result is stripped.
 */
export function renderBundleCall(command: SweCommandSpec, args: Record<string, unknown>): string {
  const quote = command.name !== 'bash' && command.endName === null;
  const formatted = new Map(
    command.arguments.map((argument) => {
      if (!(argument.name in args)) return [argument.name, ''];
      const value = args[argument.name];
      const shown = quote && typeof value === 'string' ? shellQuote(value) : value;
      return [argument.name, formatArgument(argument.argumentFormat, shown)];
    }),
  );
  return invokeFormat(command)
    .replace(/\{([a-zA-Z_][a-zA-Z0-9_-]*)\}/g, (_match, name: string) => formatted.get(name) ?? '')
    .trim();
}

/** The multi-line commands among bundle commands (those with an end marker). */
export function multilineCommandsOf(commands: readonly SweCommandSpec[]): MultilineCommand[] {
  return commands.flatMap((command) =>
    command.endName === null ? [] : [{ name: command.name, endName: command.endName }],
  );
}
