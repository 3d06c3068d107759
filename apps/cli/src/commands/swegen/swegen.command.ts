import type { EnvSource } from '@caravel/config';
import { isAppError } from '@caravel/errors';
import { LocalPrSource, swegenError, swegenExitCode, type ValidationRunner } from '@caravel/swegen';
import { parseArgs } from 'node:util';
import { subcommandUsage } from '../cli-usage.js';
import { farmCommand, publishOptions } from './farm.cli.js';
import { count, generationOptions, oneOf, OPTIONS, type Values } from './swegen.args.js';
import { swegenCreate } from './create.command.js';
import { parseSwegenEnv } from './swegen.config.js';
import { swegenValidate } from './validate.command.js';
import { swegenAnalyze } from './analyze.command.js';

/** Usage of `caravel swegen`. */
export const SWEGEN_USAGE = `Usage: caravel swegen <create|validate|farm|analyze> [options]

  create --repo OWNER/REPO --pr N     turn a merged PR into a validated Harbor task (GitHub API)
    --repo-path DIR --pr-json FILE    ...or from an injected source: a local clone + the PR as JSON
                                      (--repo and --pr default to the file's)
    --model REF                       evaluation and completion model (default CARAVEL_MODEL)
    --tasks-dir DIR                   where tasks go (default ./tasks)
    --state-dir DIR                   create.jsonl, references, repo cache, jobs (default ./.swegen)
    --sandbox bwrap|local             the completion agent's sandbox (default bwrap)
    --runner auto|harbor|bwrap        validation runner (default auto: Harbor when installed)
    --min-source-files N / --max-source-files N   substantiality bounds (default 3 / 10)
    --compat caravel|swegen-0.1       rule set (swegen-0.1 reproduces SWE-gen 0.1's quirks)
    --no-validate --no-require-issue --no-require-minimum-difficulty --no-cache --force
    --no-completion                   write the skeleton for a person: no completion agent, no
                                      validation, and no model needed (evaluated when one is given)
    --max-model-calls N               completion agent budget (default 40)
    --timeout S                       abandon the generation after S seconds (default: no limit)
  validate TASK_OR_DIR                NOP must score 0 and Oracle 1 (a directory: every task in it)
    --repo-path DIR                   local clone of the source repository (default: the repo cache)
    --runner auto|harbor|bwrap        (default auto); --max-parallel N (default 4); --results FILE
    --state-dir DIR                   (default ./.swegen)
  farm OWNER/REPO                     every merged PR (newest first) to a task, resumable
    --resume-from DATE|ISO --reset --dry-run (evaluate only, record nothing) --skip-list FILE
    --max-prs N --task-delay S --per-page N, and create's model/sandbox/runner/gate options
    --timeout S                       per PR: abandon its generation, record it timed out, go on
  analyze TASK                        agent trials on a task, each classified, then a verdict
    -k, --n-trials N (3) -n, --n-concurrent N (3) --model REF (the agent) --analysis-model REF
    (the classifier, default the agent's model) --skip-classify --repo-path DIR --sandbox
    --state-dir --max-model-calls N; writes TASK/analysis.json, exit 12 unless the task is kept
  publishing (create and farm): --publish-repo OWNER/REPO (token GIT_TOKEN, else GITHUB_TOKEN)
    --publish-path DIR (tasks) --publish-base BRANCH (main) --publish-branch-prefix (task/)
    --publish-state-branch-prefix (farm-state/) --publish-state-path (state)
    --publish-clone-dir DIR --publish-dry-run --cleanup-local
  building (the bwrap runner): a task's RUN steps reach only the hosts of SANDBOX_EGRESS_ALLOWLIST
    (default: the package registries; none: no host, GitHub included), through the mirrors of
    SANDBOX_EGRESS_MIRRORS (host=url,...), and public GitHub repositories, read-only, anonymously

Exit status: 0 ok, 1 unexpected failure, 2 bad usage, 10 trivial PR, 11 missing issue,
12 validation failed, 13 already exists, 14 publish error, 15 publish auth error, 16 rate limited,
17 PR not merged, 18 git failed, 19 timed out (create --timeout); analyze: 12 when the verdict drops the task; farm: 130 stopped by SIGINT/SIGTERM (state saved).
`;

/** Entries of {@link SWEGEN_USAGE} that serve several subcommands. */
const SWEGEN_SHARED_OPTIONS = {
  publishing: ['create', 'farm'],
  building: ['create', 'validate', 'farm', 'analyze'],
};

/** `--repo` and `--pr`, defaulting to what an injected PR file (`--pr-json`) says it is. */
async function prIdentity(values: Values): Promise<{ repo: string; prText: string }> {
  const injected =
    (!values.repo || !values.pr) && values['pr-json']
      ? (await LocalPrSource.load(values['repo-path'] ?? '.', values['pr-json'])).identity
      : undefined;
  const repo = values.repo ?? injected?.repo;
  const prText = values.pr ?? (injected ? String(injected.pr) : undefined);
  if (!repo || !prText)
    throw swegenError('invalid_input', 'create needs --repo OWNER/REPO and --pr N (or --pr-json)');
  return { repo, prText };
}

async function create(
  values: Values,
  env: EnvSource,
  write: (line: string) => void,
): Promise<number> {
  const { repo, prText } = await prIdentity(values);
  const pr = count('pr', prText, 0);
  if (pr < 1) throw swegenError('invalid_input', `--pr must be a PR number, not '${prText}'`);
  const result = await swegenCreate(
    {
      repo,
      pr,
      ...(values['repo-path'] ? { repoPath: values['repo-path'] } : {}),
      ...(values['pr-json'] ? { prJson: values['pr-json'] } : {}),
      ...generationOptions(values),
      ...(values['no-completion'] ? { completion: false } : {}),
      force: values.force === true,
      timeoutSeconds: count('timeout', values.timeout, 0),
      ...(publishOptions(values) ? { publish: publishOptions(values)! } : {}),
      write,
    },
    parseSwegenEnv(env),
  );
  const verdict = result.validation
    ? ` (${result.validation.passed ? 'validated' : 'not validated'})`
    : '';
  write(
    `${result.status === 'deduped' ? 'already created' : 'created'}: ${result.taskDir}${verdict}`,
  );
  if (result.prUrl) write(`published: ${result.prUrl}`);
  return 0;
}

async function validate(
  positionals: string[],
  values: Values,
  env: EnvSource,
  write: (line: string) => void,
): Promise<number> {
  const path = positionals[1];
  if (!path)
    throw swegenError('invalid_input', 'validate needs a task directory or a directory of tasks');
  const results = await swegenValidate(
    {
      path,
      ...(values['repo-path'] ? { repoPath: values['repo-path'] } : {}),
      stateDir: values['state-dir'] ?? '.swegen',
      runner: oneOf<ValidationRunner>('runner', values.runner, ['auto', 'harbor', 'bwrap'], 'auto'),
      maxParallel: Math.max(1, count('max-parallel', values['max-parallel'], 4)),
      ...(values.results ? { results: values.results } : {}),
      write,
    },
    parseSwegenEnv(env),
  );
  return results.every((r) => r.passed)
    ? 0
    : swegenExitCode(swegenError('validation_failed', 'validation failed'));
}

async function analyze(
  positionals: string[],
  values: Values,
  env: EnvSource,
  write: (line: string) => void,
): Promise<number> {
  const task = positionals[1];
  if (!task) throw swegenError('invalid_input', 'analyze needs a task directory');
  const trials = count('n-trials', values['n-trials'], 3);
  if (trials < 1) throw swegenError('invalid_input', '--n-trials must be at least 1');
  const analysis = await swegenAnalyze(
    {
      task,
      ...(values['repo-path'] ? { repoPath: values['repo-path'] } : {}),
      stateDir: values['state-dir'] ?? '.swegen',
      ...(values.model ? { model: values.model } : {}),
      ...(values['analysis-model'] ? { analysisModel: values['analysis-model'] } : {}),
      sandbox: oneOf('sandbox', values.sandbox, ['bwrap', 'local'], 'bwrap'),
      trials,
      concurrency: Math.max(1, count('n-concurrent', values['n-concurrent'], 3)),
      classify: !values['skip-classify'],
      maxModelCalls: count('max-model-calls', values['max-model-calls'], 40),
      write,
    },
    parseSwegenEnv(env),
  );
  return analysis.verdict.keep
    ? 0
    : swegenExitCode(swegenError('validation_failed', 'the verdict drops the task'));
}

/**
 * `caravel swegen ...`: parses its own arguments, runs the subcommand, and returns the process
 * exit status (a coded swegen error prints one line and maps to its own status).
 */
export async function runSwegen(
  args: readonly string[],
  env: EnvSource,
  io = {
    out: (l: string) => process.stdout.write(`${l}\n`),
    err: (l: string) => process.stderr.write(`${l}\n`),
  },
): Promise<number> {
  try {
    const { positionals, values } = parseArgs({
      args: [...args],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const sub = positionals[0];
    if (values.help || sub === undefined || sub === 'help') {
      // `swegen create --help`, `swegen help create`: that subcommand's own; the whole otherwise.
      const asked = sub === 'help' ? positionals[1] : sub;
      const own = asked && subcommandUsage(SWEGEN_USAGE, 'swegen', asked, SWEGEN_SHARED_OPTIONS);
      io.out(own || SWEGEN_USAGE);
      return sub === undefined && !values.help ? 2 : 0;
    }
    if (sub === 'create') return await create(values, env, io.out);
    if (sub === 'validate') return await validate(positionals, values, env, io.out);
    if (sub === 'farm') return await farmCommand(positionals, values, env, io.out);
    if (sub === 'analyze') return await analyze(positionals, values, env, io.out);
    throw swegenError('invalid_input', `unknown swegen command '${sub}'`);
  } catch (error) {
    return failure(error, io.err);
  }
}

/** The exit status of a failed command, its one line printed: 2 for bad arguments, 1 for a crash. */
function failure(error: unknown, err: (line: string) => void): number {
  if (isAppError(error)) {
    err(`caravel swegen: ${error.message}`);
    return swegenExitCode(error);
  }
  if (!(error instanceof Error)) {
    err(`caravel swegen: ${String(error)}`);
    return 1;
  }
  const badArguments = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
  err(`caravel swegen: ${badArguments ? error.message : (error.stack ?? error.message)}`);
  return badArguments ? 2 : 1;
}
