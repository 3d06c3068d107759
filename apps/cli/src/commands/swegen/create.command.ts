import { resolveModel, type ModelCredentials } from '@caravel/agent';
import { createChatModel } from '@caravel/agent/langchain';
import { modelCredentialsOf } from '@caravel/integrations';
import { BwrapSandboxProvider, LocalSandboxProvider, bwrapAvailable } from '@caravel/sandbox';
import {
  createTask,
  deadline,
  GithubPrSource,
  isRepoName,
  LocalPrSource,
  publishHookOf,
  swegenError,
  resolvePublishConfig,
  TaskPublisher,
  validateTasks,
  type CreateTaskOptions,
  type CreateTaskResult,
  type FarmCreateSettings,
  type PrSource,
  type RuleCompat,
  type ValidationRunner,
} from '@caravel/swegen';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { publishConfig, type SwegenPublishOptions } from './publish.options.js';
import { buildEgressOf, type SwegenEnv } from './swegen.config.js';

/** How a task is generated from a PR: what `create` and `farm` share. */
export interface SwegenGenerationOptions {
  readonly model?: string;
  readonly stateDir: string;
  readonly tasksDir: string;
  readonly sandbox: 'bwrap' | 'local';
  readonly runner: ValidationRunner;
  readonly validate: boolean;
  readonly requireIssue: boolean;
  readonly requireMinimumDifficulty: boolean;
  readonly minSourceFiles: number;
  readonly maxSourceFiles: number;
  readonly compat: RuleCompat;
  readonly useReferences: boolean;
  readonly maxModelCalls?: number;
}

/** The parsed options of `caravel swegen create`. */
export interface SwegenCreateOptions extends SwegenGenerationOptions {
  readonly repo: string;
  readonly pr: number;
  readonly repoPath?: string;
  readonly prJson?: string;
  /** False (`--no-completion`): the skeleton is left for a person; no model is needed. */
  readonly completion?: boolean;
  readonly force: boolean;
  /** Abandon the generation after this many seconds (none when absent or 0). */
  readonly timeoutSeconds?: number;
  readonly publish?: SwegenPublishOptions;
  readonly write: (line: string) => void;
}

/** The model credentials of the environment, read as the agent runner reads them. */
export function credentials(env: SwegenEnv): ModelCredentials {
  return modelCredentialsOf(env);
}

/** The model `--model` names, else CARAVEL_MODEL; refused when neither is set. */
export function requiredModelRef(options: { readonly model?: string }, env: SwegenEnv): string {
  const ref = options.model ?? env.CARAVEL_MODEL;
  if (!ref)
    throw swegenError(
      'invalid_input',
      'no model: pass --model (e.g. scripted:FILE) or set CARAVEL_MODEL',
    );
  return ref;
}

/** A chat model for `ref` with the environment's credentials (a `scripted:` file under the cwd). */
export function swegenChatModel(ref: string, env: SwegenEnv): BaseChatModel {
  return createChatModel(resolveModel({ team: { model: ref } }), credentials(env), {
    fileRoot: process.cwd(),
  });
}

async function prSource(options: SwegenCreateOptions, env: SwegenEnv): Promise<PrSource> {
  if (options.repoPath && options.prJson)
    return LocalPrSource.load(options.repoPath, options.prJson);
  if (options.repoPath || options.prJson) {
    throw swegenError(
      'invalid_input',
      'an injected PR source needs both --repo-path and --pr-json',
    );
  }
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  return new GithubPrSource({
    ...(token ? { token } : {}),
    ...(env.GITHUB_API_URL ? { apiUrl: env.GITHUB_API_URL } : {}),
  });
}

/** The completion agent's sandbox provider and its root directory. */
export async function sandboxProvider(
  options: Pick<SwegenCreateOptions, 'sandbox' | 'write'>,
  stateDir: string,
) {
  const rootDir = join(stateDir, 'sandboxes');
  await mkdir(rootDir, { recursive: true });
  await chmod(rootDir, 0o755);
  if (options.sandbox === 'local')
    return {
      provider: new LocalSandboxProvider({
        rootDir,
        logger: { warn: (message) => options.write(`warning: ${message}`) },
      }),
      rootDir,
    };
  if (!bwrapAvailable()) {
    throw swegenError(
      'invalid_input',
      'bubblewrap is not installed (apt-get install bubblewrap), or pass --sandbox local',
    );
  }
  return { provider: new BwrapSandboxProvider({ rootDir }), rootDir };
}

/** The options `create` and `farm` share (model, sandbox, validation, gates). */
export type SharedCreateOptions = Pick<
  SwegenCreateOptions,
  | 'model'
  | 'stateDir'
  | 'sandbox'
  | 'runner'
  | 'validate'
  | 'requireIssue'
  | 'requireMinimumDifficulty'
  | 'minSourceFiles'
  | 'maxSourceFiles'
  | 'compat'
  | 'useReferences'
  | 'maxModelCalls'
  | 'repoPath'
  | 'write'
>;

/** The gates of a `create`: linked issue, difficulty, substantiality, task references. */
function gateSettings(options: SharedCreateOptions) {
  return {
    requireIssue: options.requireIssue,
    requireMinimumDifficulty: options.requireMinimumDifficulty,
    substantiality: {
      minSourceFiles: options.minSourceFiles,
      maxSourceFiles: options.maxSourceFiles,
      compat: options.compat,
    },
    useReferences: options.useReferences,
  };
}

/** The model, the completion sandbox, the validator and the gates of a `create`. */
export async function createSettings(
  options: SharedCreateOptions,
  env: SwegenEnv,
): Promise<FarmCreateSettings> {
  const model = swegenChatModel(requiredModelRef(options, env), env);
  const stateDir = resolve(options.stateDir);
  const { provider, rootDir } = await sandboxProvider(options, stateDir);
  const validateOptions = {
    stateDir,
    runner: options.runner,
    searchPath: env.PATH ?? '',
    egress: buildEgressOf(env),
    ...(options.repoPath ? { repoPath: options.repoPath } : {}),
  };
  return {
    model,
    completion: {
      provider,
      hostWorkspace: (id) => join(rootDir, id, 'workspace'),
      ...(options.maxModelCalls ? { maxModelCalls: options.maxModelCalls } : {}),
    },
    validator: async (taskDir, signal) =>
      (await validateTasks(taskDir, { ...validateOptions, ...(signal ? { signal } : {}) }))[0]!,
    validate: options.validate,
    ...gateSettings(options),
  };
}

/**
 * `--no-completion`: the gates and a skeleton for a person, nothing that needs a sandbox; the
 * model (when one is configured) only evaluates the PR.
 */
function manualSettings(options: SwegenCreateOptions, env: SwegenEnv): FarmCreateSettings {
  const modelRef = options.model ?? env.CARAVEL_MODEL;
  return {
    ...(modelRef ? { model: swegenChatModel(modelRef, env) } : {}),
    validate: false,
    ...gateSettings(options),
  };
}

/**
 * `caravel swegen create`: one merged PR to a validated Harbor task. With `--publish-repo` the
 * token's push permission is checked first, before any generation; `--timeout` abandons the
 * generation (TIMED_OUT, exit 19).
 */
export async function swegenCreate(
  options: SwegenCreateOptions,
  env: SwegenEnv,
): Promise<CreateTaskResult> {
  if (!isRepoName(options.repo))
    throw swegenError('invalid_input', `--repo must be owner/repo, not '${options.repo}'`);
  const settings =
    options.completion === false
      ? manualSettings(options, env)
      : await createSettings(options, env);
  const stateDir = resolve(options.stateDir);
  const limit = deadline((options.timeoutSeconds ?? 0) * 1000, `${options.repo}#${options.pr}`);
  try {
    return await createTask({
      ...settings,
      repo: options.repo,
      pr: options.pr,
      source: await prSource(options, env),
      stateDir,
      tasksDir: resolve(options.tasksDir),
      force: options.force,
      log: options.write,
      ...(limit.signal ? { signal: limit.signal } : {}),
      ...publishHooks(options, env, stateDir),
    });
  } finally {
    limit.clear();
  }
}

function publishHooks(
  options: SwegenCreateOptions,
  env: SwegenEnv,
  stateDir: string,
): Pick<CreateTaskOptions, 'publish' | 'preflight'> {
  const config = publishConfig(options.publish, env);
  if (!config) return {};
  const publisher = new TaskPublisher(resolvePublishConfig(config, options.repo, stateDir));
  return {
    preflight: () => publisher.preflight((line) => options.write(`warning: ${line}`)),
    publish: publishHookOf(publisher),
  };
}
