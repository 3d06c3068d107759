import type { EnvSource } from '@caravel/config';
import { swegenError, swegenExitCode } from '@caravel/swegen';
import { swegenFarm } from './farm.command.js';
import type { SwegenPublishOptions } from './publish.options.js';
import { count, generationOptions, type Values } from './swegen.args.js';
import { parseSwegenEnv } from './swegen.config.js';

/** Exit status of a farm stopped by SIGINT/SIGTERM after saving its state. */
export const FARM_INTERRUPTED_EXIT = 130;

/** `--publish-*` options, or undefined without `--publish-repo`. */
export function publishOptions(values: Values): SwegenPublishOptions | undefined {
  const repo = values['publish-repo'];
  if (!repo) return undefined;
  const optional = {
    path: values['publish-path'],
    base: values['publish-base'],
    branchPrefix: values['publish-branch-prefix'],
    stateBranchPrefix: values['publish-state-branch-prefix'],
    statePath: values['publish-state-path'],
    cloneDir: values['publish-clone-dir'],
  };
  return {
    repo,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    dryRun: values['publish-dry-run'] === true,
    cleanupLocal: values['cleanup-local'] === true,
  };
}

/**
 * `caravel swegen farm OWNER/REPO`: SIGINT/SIGTERM ask the farm to stop; it finishes the PR in
 * flight, saves its state and exits 130. An abort exits with its error's own status.
 */
export async function farmCommand(
  positionals: string[],
  values: Values,
  env: EnvSource,
  write: (line: string) => void,
): Promise<number> {
  const repo = positionals[1];
  if (!repo) throw swegenError('invalid_input', 'farm needs OWNER/REPO');
  let stop = false;
  const onSignal = (signal: string): void => {
    stop = true;
    write(`${signal}: finishing the current PR, then saving the farm state`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const publish = publishOptions(values);
    const maxPrs = values['max-prs'] ? count('max-prs', values['max-prs'], 0) : undefined;
    const perPage = values['per-page'] ? count('per-page', values['per-page'], 100) : undefined;
    const result = await swegenFarm(
      {
        repo,
        ...generationOptions(values),
        dryRun: values['dry-run'] === true,
        reset: values.reset === true,
        taskDelaySeconds: count('task-delay', values['task-delay'], 0),
        timeoutSeconds: count('timeout', values.timeout, 0),
        ...(values['resume-from'] ? { resumeFrom: values['resume-from'] } : {}),
        ...(values['skip-list'] ? { skipList: values['skip-list'] } : {}),
        ...(maxPrs !== undefined ? { maxPrs } : {}),
        ...(perPage ? { perPage } : {}),
        ...(publish ? { publish } : {}),
        shouldStop: () => stop,
        write,
      },
      parseSwegenEnv(env),
    );
    const s = result.state;
    write(
      `farm ${result.outcome}${result.reason ? `: ${result.reason}` : ''} — ${result.prsSeen} PRs this run; ${s.successfulCount} tasks, ${s.failedCount} failed, ${s.publishFailed.size + s.rateLimited.size} pending`,
    );
    if (result.outcome === 'completed') return 0;
    if (result.outcome === 'interrupted') return FARM_INTERRUPTED_EXIT;
    return swegenExitCode(result.error);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
