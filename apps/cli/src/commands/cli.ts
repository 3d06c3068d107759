import type { EnvSource } from '@caravel/config';
import { isAppError } from '@caravel/errors';
import { rmSync } from 'node:fs';
import {
  bundleOptions,
  isThreadId,
  optional,
  parseCommand,
  portOption,
  UsageError,
  type ParsedCommand,
} from './cli-args.js';
import { commandUsage, isCommandName, USAGE, type CommandName } from './cli-usage.js';

/** Where the CLI reads and writes. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  stdin: NodeJS.ReadableStream;
  /** The terminal stdout is, when it is one (for `caravel run`'s live status line). */
  terminal?: { readonly columns: number; write(text: string): void };
  /** Registers what a Ctrl-C (SIGINT) or SIGTERM does while a command runs. */
  onSignal(handler: (signal: string) => void): void;
  /** Sets up what a command needs that usage and help do not (the process's logger). */
  prepare?(): Promise<void>;
}

/** A finished command's exit status, or `serving`: a server runs until it is stopped. */
export type CliOutcome = number | 'serving';

type Handler = (parsed: ParsedCommand, env: EnvSource, io: CliIo) => Promise<CliOutcome>;

/** NestJS needs decorator metadata before any decorated class loads. */
async function loadNest(): Promise<void> {
  await import('reflect-metadata');
}

function noArguments(command: CommandName, parsed: ParsedCommand): void {
  if (parsed.positionals.length > 0)
    throw new UsageError(command, `takes no arguments, got '${parsed.positionals.join(' ')}'`);
}

function threadArgument(command: CommandName, value: string | undefined): string {
  if (value === undefined) throw new UsageError(command, 'needs a THREAD id');
  if (!isThreadId(value))
    throw new UsageError(
      command,
      `'${value}' is not a thread id: a thread id is a UUID, as \`caravel run\` prints it ` +
        '(thread 5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e: …)',
    );
  return value;
}

const start: Handler = async ({ positionals, values }, env, io) => {
  noArguments('start', { positionals, values, help: false });
  const port = portOption('start', values['port']);
  // A port in use is said before seconds of loading; the start checks it again once configured.
  await (await import('./port-check.js')).assertStartPortFree(env, port);
  io.out('caravel: loading the services\n');
  await loadNest();
  const { startEmbedded } = await import('./start.command.js');
  await startEmbedded(env, {
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(port === undefined ? {} : { port }),
  });
  return 'serving';
};

const run: Handler = async ({ positionals, values }, env, io) => {
  const repo = values['repo'];
  const task = positionals.join(' ').trim();
  if (!repo) throw new UsageError('run', 'needs --repo PATH (the repository to work on)');
  if (!task) throw new UsageError('run', 'needs a task, e.g. "make the failing test pass"');
  const dataDir = values['data-dir'];
  const stop = new AbortController();
  const temporary = new Set<string>();
  io.onSignal((signal) => {
    if (!stop.signal.aborted) {
      io.err(`\n${signal}: stopping the run (again to quit at once)\n`);
      return stop.abort(new Error(signal));
    }
    // A second signal: no waiting for the platform, but no temporary data left behind either.
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  await loadNest();
  const { runTask } = await import('./run.command.js');
  try {
    const report = await runTask(env, {
      repo,
      task,
      ...(values['model'] ? { model: values['model'] } : {}),
      ...(dataDir ? { dataDir } : {}),
      ...bundleOptions(values),
      write: (line) => io.out(`${line}\n`),
      ...(io.terminal ? { terminal: io.terminal } : {}),
      signal: stop.signal,
      onTemporaryDir: (dir) => temporary.add(dir),
    });
    return report.outcome === 'completed' ? 0 : 1;
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    io.err(`caravel run: stopped${dataDir ? '' : '; its temporary data was removed'}\n`);
    return 130;
  }
};

const trajectory: Handler = async ({ positionals, values }, _env, io) => {
  const [sub, thread, ...extra] = positionals;
  if (sub === undefined)
    throw new UsageError('trajectory', 'needs a subcommand: trajectory export THREAD');
  if (sub !== 'export') throw new UsageError('trajectory', `unknown trajectory command '${sub}'`);
  const threadId = threadArgument('trajectory', thread);
  if (extra.length > 0) throw new UsageError('trajectory', `unexpected '${extra.join(' ')}'`);
  const { exportTrajectory } = await import('./trajectory.command.js');
  const written = await exportTrajectory({
    threadId,
    ...optional({
      runId: values['run'],
      out: values['out'],
      dataDir: values['data-dir'],
      databaseUrl: values['database-url'],
    }),
  });
  io.out(`run ${written.runId}: trajectory written to ${written.file}\n`);
  return 0;
};

const replay: Handler = async ({ positionals, values }, env) => {
  const [source, ...extra] = positionals;
  if (source === undefined) throw new UsageError('replay', 'needs a THREAD id or a FILE.traj');
  if (extra.length > 0) throw new UsageError('replay', `unexpected '${extra.join(' ')}'`);
  const sandbox = values['sandbox'] ?? 'bwrap';
  if (sandbox !== 'bwrap' && sandbox !== 'local')
    throw new UsageError('replay', `--sandbox must be bwrap or local, not '${sandbox}'`);
  const { replayTrajectory } = await import('./replay.command.js');
  const report = await replayTrajectory({
    source,
    sandbox,
    path: env['PATH'] ?? '',
    ...optional({
      repo: values['repo'],
      base: values['base'],
      dataDir: values['data-dir'],
      databaseUrl: values['database-url'],
    }),
    ...bundleOptions(values),
  });
  return report.identical ? 0 : 1;
};

const attach: Handler = async ({ positionals, values }, env, io) => {
  const threadId = threadArgument('attach', positionals[0]);
  const token = values['token'] ?? env['DASHBOARD_TOKEN'] ?? env['CARAVEL_DASHBOARD_TOKEN'];
  const { attachThread } = await import('./attach.command.js');
  await attachThread({
    url: values['url'] ?? `http://127.0.0.1:${env['PORT'] ?? '3000'}`,
    threadId,
    as: values['as'] ?? env['USER'] ?? 'operator',
    ...(token ? { token } : {}),
    input: io.stdin,
    write: (line) => io.out(`${line}\n`),
  });
  return 0;
};

/** A time option as ISO 8601, or a UsageError naming it. */
function timeOption(command: CommandName, name: string, value: string | undefined) {
  if (value === undefined) return undefined;
  const time = new Date(value);
  if (Number.isNaN(time.getTime()))
    throw new UsageError(
      command,
      `--${name} must be a time (ISO 8601, e.g. 2026-12-01T10:00Z), not '${value}'`,
    );
  return time.toISOString();
}

const deadLetters: Handler = async ({ positionals, values }, env, io) => {
  const [sub = 'list', ...ids] = positionals;
  if (sub !== 'list' && sub !== 'replay')
    throw new UsageError('dead-letters', `unknown dead-letters command '${sub}' (list or replay)`);
  if (sub === 'list' && ids.length > 0)
    throw new UsageError('dead-letters', `list takes no IDs, got '${ids.join(' ')}'`);
  const all = values['all'] === 'true';
  if (sub === 'list' && all) throw new UsageError('dead-letters', '--all is for replay');
  const filter = {
    ...(ids.length > 0 ? { ids } : {}),
    ...optional({
      consumer: values['consumer'],
      since: timeOption('dead-letters', 'since', values['since']),
      until: timeOption('dead-letters', 'until', values['until']),
    }),
  };
  if (sub === 'replay' && !all && Object.keys(filter).length === 0)
    throw new UsageError(
      'dead-letters',
      'replay needs dead-letter IDs (caravel dead-letters list shows them), --consumer, --since/--until, or --all',
    );
  const token = values['token'] ?? env['DASHBOARD_TOKEN'] ?? env['CARAVEL_DASHBOARD_TOKEN'];
  const target = {
    url: values['url'] ?? `http://127.0.0.1:${env['PORT'] ?? '3000'}`,
    ...(token ? { token } : {}),
  };
  const command = await import('./dead-letters.command.js');
  const lines =
    sub === 'list'
      ? command.describeDeadLetters(await command.listDeadLetters(target, filter))
      : command.describeReplays(
          await command.replayDeadLetters(target, { ...filter, ...(all ? { all } : {}) }),
        );
  io.out(`${lines.join('\n')}\n`);
  return 0;
};

const connect: Handler = async ({ positionals, values }, env, io) =>
  (await import('./connect-reseal.command.js')).runConnect(positionals, values, env, io);

const db: Handler = async ({ positionals, values }, env, io) =>
  (await import('./db.command.js')).runDb(positionals, values, env, io);

const githubApp: Handler = async (parsed, env, io) =>
  (await import('./github-app/github-app.cli.js')).runGithubApp(parsed, env, io);

const analyze: Handler = async ({ positionals, values }, env, io) =>
  (await import('./analyze.command.js')).runAnalyze(positionals, values, env, io);

const fakeModel: Handler = async ({ positionals, values }, _env, io) => {
  noArguments('fake-model', { positionals, values, help: false });
  const port = portOption('fake-model', values['port']) ?? 8089;
  const { serveFakeModel } = await import('./fake-model.command.js');
  const server = await serveFakeModel({
    port,
    ...(values['script'] ? { script: values['script'] } : {}),
    write: (line) => io.out(`${line}\n`),
  });
  io.onSignal(() => void server.close().then(() => process.exit(0)));
  return 'serving';
};

const evalCommand: Handler = async ({ positionals, values }, env, io) => {
  // `eval run` and `eval gate` boot the platform for each attempt, as `caravel run` does;
  // `eval scheduler` is a service host.
  if (['run', 'gate', 'scheduler'].includes(positionals[0] ?? '')) await loadNest();
  const { runEval } = await import('./eval/eval.cli.js');
  return runEval(positionals, values, io, env);
};

const reviewEval: Handler = async (parsed, env, io) =>
  (await import('./review-eval/review-eval.cli.js')).reviewEval(parsed, env, io);

const help: Handler = async ({ positionals }, env, io) => {
  const [name] = positionals;
  if (name === undefined) {
    io.out(USAGE);
    return 0;
  }
  if (name === 'swegen') {
    const { runSwegen } = await import('./swegen/swegen.command.js');
    return runSwegen(['help', ...positionals.slice(1)], env);
  }
  if (!isCommandName(name)) throw new UsageError('help', `unknown command '${name}'`);
  io.out(commandUsage(name));
  return 0;
};

const HANDLERS: Record<Exclude<CommandName, 'swegen'>, Handler> = {
  start,
  run,
  trajectory,
  replay,
  attach,
  'dead-letters': deadLetters,
  connect,
  db,
  'github-app': githubApp,
  analyze,
  'fake-model': fakeModel,
  eval: evalCommand,
  'review-eval': reviewEval,
  help,
};

/**
 * What a user reads when a command fails: a coded error's message, or for anything else its
 * message and where the stack is (LOG_LEVEL=debug) — never a stack for a bad input.
 */
export function describeFailure(error: unknown, env: EnvSource): string {
  if (isAppError(error)) return error.message;
  if (!(error instanceof Error)) return String(error);
  const level = env['LOG_LEVEL'];
  if (level === 'debug' || level === 'verbose') return error.stack ?? error.message;
  return `${error.message} (unexpected: LOG_LEVEL=debug prints the stack)`;
}

/**
 * `caravel`: the whole command line. Usage and help print without loading NestJS, LangChain or
 * PGlite; each command loads what it needs when it runs.
 */
export async function runCli(
  argv: readonly string[],
  env: EnvSource,
  io: CliIo,
): Promise<CliOutcome> {
  const [name, ...args] = argv;
  let command: CommandName | undefined;
  try {
    if (name === undefined || name === '-h' || name === '--help') {
      io.out(USAGE);
      return 0;
    }
    if (name.startsWith('-'))
      throw new UsageError(
        undefined,
        `a command comes first, then its options (caravel start ${argv.join(' ')})`,
      );
    if (!isCommandName(name)) throw new UsageError(undefined, `unknown command '${name}'`);
    command = name;
    if (name === 'swegen') {
      await io.prepare?.();
      await loadNest();
      const { runSwegen } = await import('./swegen/swegen.command.js');
      return await runSwegen(args, env);
    }
    const parsed = parseCommand(name, args);
    if (parsed.help) {
      io.out(commandUsage(name));
      return 0;
    }
    if (name !== 'help') await io.prepare?.();
    return await HANDLERS[name](parsed, env, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(error.render(USAGE));
      return 2;
    }
    io.err(`caravel${command ? ` ${command}` : ''}: ${describeFailure(error, env)}\n`);
    return 1;
  }
}
