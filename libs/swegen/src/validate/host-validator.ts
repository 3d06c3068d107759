import { chmod, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { isAppError } from '@caravel/errors';
import type { BuildEgressOptions } from './build-egress.js';
import { buildOnHost } from './host-build.js';
import { runHostTrial } from './host-trial.js';
import { readTaskTimeouts } from './task-config.js';
import { validationPassed, type TaskValidation, type TrialOutcome } from './validation-result.js';

/** Settings of a host validation. */
export interface HostValidationOptions {
  /** A local clone holding the task's head commit. */
  readonly repoPath: string;
  /** Where each trial's logs and result.json are kept (`<jobsDir>/<taskId>/<agent>/`). */
  readonly jobsDir: string;
  readonly bwrapPath?: string;
  /** What the build steps reach (default: the package registries, see `buildOnHost`). */
  readonly egress?: BuildEgressOptions;
  /** Keep the built environment and trial trees (for debugging); removed by default. */
  readonly keepWorkDir?: boolean;
  /** Stops the validation: the sandbox running is killed and the validation rejects. */
  readonly signal?: AbortSignal;
}

function failedTrial(agent: 'nop' | 'oracle', error: string): TrialOutcome {
  return { agent, reward: null, error };
}

/**
 * Validates one task without Docker: builds its environment once on the host (network only
 * through the egress proxy, see `buildOnHost`), then runs NOP and Oracle each on a copy of it
 * with no network. A build failure gives both trials a null reward naming the failure, so the
 * task fails validation.
 */
export async function validateOnHost(
  taskDir: string,
  options: HostValidationOptions,
): Promise<TaskValidation> {
  const taskId = basename(taskDir);
  const timeouts = await readTaskTimeouts(taskDir);
  const workDir = await mkdtemp(join(tmpdir(), 'caravel-swegen-'));
  await chmod(workDir, 0o755);
  const jobDir = join(options.jobsDir, taskId);
  await mkdir(jobDir, { recursive: true });
  try {
    let environment;
    try {
      environment = await buildOnHost({
        taskDir,
        repoPath: options.repoPath,
        workDir: join(workDir, 'build'),
        timeoutMs: timeouts.buildMs,
        ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
        ...(options.egress ? { egress: options.egress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      await cp(join(workDir, 'build', 'build.log'), join(jobDir, 'build.log')).catch(
        () => undefined,
      );
      if (!isAppError(error) || options.signal?.aborted) throw error;
      return {
        taskId,
        taskDir,
        runner: 'bwrap-host',
        nop: failedTrial('nop', error.message),
        oracle: failedTrial('oracle', error.message),
        passed: false,
        buildLog: join(jobDir, 'build.log'),
      };
    }
    await cp(environment.logFile, join(jobDir, 'build.log'));
    const trial = async (agent: 'nop' | 'oracle'): Promise<TrialOutcome> => {
      const trialDir = join(workDir, agent);
      const outcome = await runHostTrial({
        agent,
        taskDir,
        taskId,
        environment,
        trialDir,
        agentTimeoutMs: timeouts.agentMs,
        verifierTimeoutMs: timeouts.verifierMs,
        ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      await cp(join(trialDir, 'logs'), join(jobDir, agent), { recursive: true });
      await cp(join(trialDir, 'result.json'), join(jobDir, agent, 'result.json'));
      return { ...outcome, logDir: join(jobDir, agent) };
    };
    const nop = await trial('nop');
    const oracle = await trial('oracle');
    return {
      taskId,
      taskDir,
      runner: 'bwrap-host',
      nop,
      oracle,
      passed: validationPassed(nop, oracle),
      buildLog: join(jobDir, 'build.log'),
    };
  } finally {
    if (!options.keepWorkDir) await rm(workDir, { recursive: true, force: true });
  }
}
