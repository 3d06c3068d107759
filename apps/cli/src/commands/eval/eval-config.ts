import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { basename } from 'node:path';
import { z } from 'zod';
import { parseFile, readJsonFile } from './json-file.js';

/** The configuration a suite runs under: what the gate compares. */
export interface EvalConfig {
  /** Its name in the record (`config`) and in preds.json's `model_name_or_path`. */
  readonly name: string;
  /** The model reference runs use (`anthropic:claude-sonnet-4-5`, `scripted:FILE`...). */
  readonly model: string;
  /** Settings laid over the environment for every run (effort, middleware, prompts...). */
  readonly env: Readonly<Record<string, string>>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

/** A configuration file: `{ "name"?, "model"?, "env"?: { KEY: "value" } }`. */
const configFileSchema = z.strictObject({
  name: z.string().regex(NAME, 'letters, digits, . _ - (at most 80)').optional(),
  model: z.string().min(1).optional(),
  env: z
    .record(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'an environment variable name'), z.string())
    .default({}),
});

async function readConfigFile(file: string): Promise<z.output<typeof configFileSchema>> {
  const raw = await readJsonFile(file, (why) => `--config ${file}: ${why}`);
  return parseFile(configFileSchema, raw, `--config ${file}`);
}

/**
 * `--config NAME` (the model from `--model`, else CARAVEL_MODEL) or `--config FILE.json` (its
 * name defaulting to the file's, its model overridden by `--model`, its `env` laid over the
 * environment). A bad name, an unreadable or malformed file, or no model is refused, saying which.
 */
export async function resolveEvalConfig(
  value: string,
  options: { model?: string; env: EnvSource },
): Promise<EvalConfig> {
  const file = value.endsWith('.json') ? await readConfigFile(value) : undefined;
  const name = file ? (file.name ?? basename(value, '.json')) : value;
  if (!NAME.test(name))
    throw new AppError(
      'BAD_REQUEST',
      `--config '${value}': a configuration is a name (letters, digits, . _ -, at most 80) or a FILE.json`,
    );
  const model = options.model ?? file?.model ?? options.env['CARAVEL_MODEL'];
  if (!model)
    throw new AppError(
      'CONFIG_INVALID',
      `configuration '${name}' has no model: pass --model, give "model" in the file, or set CARAVEL_MODEL`,
    );
  return { name, model, env: file?.env ?? {} };
}
