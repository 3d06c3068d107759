import { parseArgs, type ParseArgsConfig } from 'node:util';
import { commandUsage, type CommandName } from './cli-usage.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;
const store = { 'data-dir': text, 'database-url': text } as const;

/** The options each command takes (every command also takes -h/--help). */
export const COMMAND_OPTIONS = {
  start: { 'data-dir': text, port: text },
  run: {
    repo: text,
    model: text,
    'data-dir': text,
    'tools-dir': text,
    bundle: { type: 'string', multiple: true },
  },
  trajectory: { run: text, out: text, ...store },
  replay: {
    repo: text,
    base: text,
    sandbox: text,
    'tools-dir': text,
    bundle: { type: 'string', multiple: true },
    ...store,
  },
  attach: { url: text, as: text, token: text },
  'dead-letters': { consumer: text, since: text, until: text, all: flag, url: text, token: text },
  connect: { ...store },
  db: { apply: flag, service: { type: 'string', multiple: true }, ...store },
  'github-app': {
    url: text,
    'dashboard-url': text,
    name: text,
    org: text,
    out: text,
    port: text,
    workflows: flag,
  },
  analyze: { url: text, token: text },
  'fake-model': { port: text, script: text },
  eval: {
    out: text,
    'max-drop': text,
    alpha: text,
    config: text,
    model: text,
    attempts: text,
    concurrency: text,
    'repo-path': text,
    'state-dir': text,
    'data-dir': text,
    'database-url': text,
    suite: text,
    against: text,
    proposal: text,
    once: flag,
    set: text,
    sandbox: text,
  },
  'review-eval': {
    model: text,
    judge: text,
    tolerance: text,
    'min-severity': text,
    concurrency: text,
    sandbox: text,
    out: text,
    config: text,
    'database-url': text,
  },
  help: {},
} as const satisfies Record<Exclude<CommandName, 'swegen'>, Options>;

/** A command line `caravel` cannot act on: printed with the command's usage, exit 2. */
export class UsageError extends Error {
  constructor(
    readonly command: CommandName | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }

  /** What the user reads: the reason, then how the command is used. */
  render(usage: string): string {
    const who = this.command === undefined ? 'caravel' : `caravel ${this.command}`;
    return `${who}: ${this.message}\n\n${this.command ? commandUsage(this.command) : usage}`;
  }
}

/**
 * One command's parsed arguments: option values (a flag given is `'true'`), positionals, whether
 * help was asked.
 */
export interface ParsedCommand {
  readonly positionals: string[];
  readonly values: Readonly<Record<string, string | undefined>>;
  readonly help: boolean;
}

function optionNames(options: Options): string {
  return [...Object.keys(options).map((name) => `--${name}`), '--help'].join(', ');
}

/** Node's parse errors, said in the user's terms (the option, the known ones). */
function usageErrorFrom(command: CommandName, options: Options, error: unknown): UsageError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]+)/.exec(message)?.[1] ?? '?';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const known = Object.keys(options).length === 0 ? 'only --help' : optionNames(options);
    return new UsageError(command, `unknown option '${option}'; known options: ${known}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(
      command,
      /does not take an argument/.test(message)
        ? `${option} takes no value`
        : `${option} needs a value (${option} VALUE or ${option}=VALUE)`,
    );
  }
  return new UsageError(command, message);
}

/**
 * Parses one command's arguments strictly: an unknown option, or an option missing its value,
 * is a {@link UsageError} naming it.
 */
export function parseCommand(
  command: Exclude<CommandName, 'swegen'>,
  args: readonly string[],
): ParsedCommand {
  const options: Options = COMMAND_OPTIONS[command];
  try {
    const parsed = parseArgs({
      args: [...args],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    const values: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(parsed.values)) {
      if (typeof value === 'string') values[name] = value;
      // A repeatable option (`--bundle a --bundle b`) reads as one comma-separated value.
      else if (Array.isArray(value)) values[name] = value.join(',');
      else if (value === true && name !== 'help') values[name] = 'true';
    }
    return { positionals: parsed.positionals, values, help: parsed.values['help'] === true };
  } catch (error) {
    throw usageErrorFrom(command, options, error);
  }
}

/** `--tools-dir DIR` and the repeated `--bundle NAME` (run, replay), as the commands take them. */
export function bundleOptions(values: ParsedCommand['values']): {
  toolsDir?: string;
  bundles?: string[];
} {
  const toolsDir = values['tools-dir'];
  const bundles = values['bundle'];
  return { ...(toolsDir ? { toolsDir } : {}), ...(bundles ? { bundles: bundles.split(',') } : {}) };
}

/** `--port` (or another port option) as a number, or a UsageError naming the option and value. */
export function portOption(
  command: CommandName,
  value: string | undefined,
  name = 'port',
): number | undefined {
  if (value === undefined) return undefined;
  const port = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new UsageError(command, `--${name} must be a port number (0-65535), not '${value}'`);
  }
  return port;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` can be a thread id (a UUID, as `caravel run` and the dashboard print them). */
export function isThreadId(value: string): boolean {
  return UUID.test(value);
}

/** Drops the undefined values of an options object (exactOptionalPropertyTypes-friendly). */
export function optional<T extends Record<string, string | undefined>>(
  values: T,
): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: string;
  };
}
