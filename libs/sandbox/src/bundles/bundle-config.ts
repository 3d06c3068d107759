import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { sandboxError } from '../sandbox.errors.js';

/** One argument of a bundle command, as SWE-agent's `Argument` reads it. */
export interface BundleArgument {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly required: boolean;
  /** How the value is written into the command (jinja, default `{{value}}`). */
  readonly argumentFormat: string;
  readonly enum?: readonly string[];
}

/** One command a bundle declares (`tools.<name>` of its `config.yaml`). */
export interface BundleCommand {
  readonly name: string;
  readonly docstring: string | null;
  readonly signature: string | null;
  /** The marker line that ends a multi-line command's body (windowed `edit … end_of_edit`). */
  readonly endName: string | null;
  readonly arguments: readonly BundleArgument[];
}

/** What a bundle's `config.yaml` says. */
export interface BundleConfig {
  readonly commands: readonly BundleCommand[];
  /** Run after every step; writes the bundle's keys into the state file. */
  readonly stateCommand: string | null;
  /**
   * Environment the bundle's commands need (`env_variables`). SWE-agent keeps these in the
   * agent's tools configuration; a bundle may carry its own here, and the run's win.
   */
  readonly envVariables: Readonly<Record<string, string>>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const argumentSchema = z.object({
  name: z.string().regex(NAME, 'an argument name is a word (letters, digits, _ and -)'),
  type: z.string(),
  description: z.string().default(''),
  required: z.boolean().default(true),
  argument_format: z.string().default('{{value}}'),
  enum: z.array(z.string()).optional(),
  items: z.unknown().optional(),
});

const commandSchema = z.object({
  docstring: z.string().nullable().default(null),
  signature: z.string().nullable().default(null),
  end_name: z.string().nullable().default(null),
  arguments: z.array(argumentSchema).nullable().default([]),
});

const configSchema = z.object({
  tools: z.record(z.string().regex(NAME, 'a command name is a word'), commandSchema),
  state_command: z.string().nullable().default(null),
  env_variables: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string(), z.number()]))
    .default({}),
});

function where(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

/**
 * Reads a bundle's `config.yaml` as SWE-agent's `BundleConfig` does: `tools` (a map of command
 * name to `signature`, `docstring`, `arguments`, `end_name`), an optional `state_command`, and
 * Caravel's optional `env_variables`. Unknown keys are ignored, as pydantic does.
 * @throws AppError BAD_REQUEST (`invalid_input`) naming the file and the key at fault.
 */
export function parseBundleConfig(text: string, file: string): BundleConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw sandboxError('invalid_input', `${file}: not valid YAML: ${reason}`, { file });
  }
  const parsed = configSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`);
    throw sandboxError('invalid_input', `${file}: ${problems.join('; ')}`, { file });
  }
  const commands = Object.entries(parsed.data.tools).map(([name, command]) => ({
    name,
    docstring: command.docstring,
    signature: command.signature?.trim() ?? null,
    endName: command.end_name,
    arguments: (command.arguments ?? []).map((argument) => ({
      name: argument.name,
      type: argument.type,
      description: argument.description,
      required: argument.required,
      argumentFormat: argument.argument_format,
      ...(argument.enum ? { enum: argument.enum } : {}),
    })),
  }));
  const env = Object.entries(parsed.data.env_variables).map(([k, v]) => [k, String(v)]);
  return {
    commands,
    stateCommand: parsed.data.state_command,
    envVariables: Object.fromEntries(env) as Record<string, string>,
  };
}
