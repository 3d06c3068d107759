import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readReward } from './reward.js';
import { chownToSandbox, type BuiltEnvironment } from './host-build.js';
import { runInTaskSandbox, type TaskMount } from './task-sandbox.js';
import type { TrialOutcome } from './validation-result.js';

const run = promisify(execFile);

/** What one trial needs. */
export interface HostTrialInput {
  readonly agent: 'nop' | 'oracle';
  readonly taskDir: string;
  readonly taskId: string;
  readonly environment: BuiltEnvironment;
  /** A fresh directory for this trial (traversable by the sandbox owner). */
  readonly trialDir: string;
  readonly agentTimeoutMs: number;
  readonly verifierTimeoutMs: number;
  readonly bwrapPath?: string;
  /** Stops the trial (its sandbox killed); the trial rejects with the reason. */
  readonly signal?: AbortSignal;
}

const ORACLE =
  '/solution/solve.sh > /logs/agent/oracle.txt 2>&1; status=$?; ' +
  'if [ "$status" -ne 0 ]; then echo "$status" > /logs/agent/exit-code.txt; fi';
const VERIFIER = '/tests/test.sh > /logs/verifier/test-stdout.txt 2>&1';

async function prepareTrial(input: HostTrialInput): Promise<TaskMount[]> {
  const t = input.trialDir;
  await mkdir(t, { recursive: true });
  await run('cp', ['-a', input.environment.appDir, join(t, 'app')]);
  await cp(join(input.taskDir, 'tests'), join(t, 'tests'), { recursive: true });
  await chmod(join(t, 'tests', 'test.sh'), 0o755);
  for (const dir of ['logs/agent', 'logs/verifier', 'logs/artifacts', 'tmp', 'root']) {
    await mkdir(join(t, dir), { recursive: true });
  }
  const mounts: TaskMount[] = [
    { host: join(t, 'app'), inner: '/app' },
    { host: join(t, 'tmp'), inner: '/tmp' },
    { host: join(t, 'root'), inner: '/root' },
    { host: join(t, 'logs'), inner: '/logs' },
    { host: join(t, 'tests'), inner: '/tests', readOnly: true },
  ];
  if (input.agent === 'oracle') {
    await cp(join(input.taskDir, 'solution'), join(t, 'solution'), { recursive: true });
    await chmod(join(t, 'solution', 'solve.sh'), 0o755);
    mounts.push({ host: join(t, 'solution'), inner: '/solution', readOnly: true });
  }
  for (const dir of ['tests', 'solution', 'logs', 'tmp', 'root']) {
    await chownToSandbox(join(t, dir)).catch(() => undefined);
  }
  return mounts;
}

/**
 * One Harbor-style trial on the host with no network: a copy of the built environment, the agent
 * phase (NOP does nothing; Oracle runs solution/solve.sh, a non-zero exit recorded in
 * agent/exit-code.txt but not failing the trial), then tests/ copied in and tests/test.sh run as
 * the verifier, its exit status ignored and the reward read from the reward file.
 */
export async function runHostTrial(input: HostTrialInput): Promise<TrialOutcome> {
  const mounts = await prepareTrial(input);
  const base = {
    cwd: input.environment.workdir,
    mounts,
    bwrapPath: input.bwrapPath,
    ...(input.signal ? { signal: input.signal } : {}),
  };
  if (input.agent === 'oracle') {
    const logFile = join(input.trialDir, 'logs', 'agent', 'sandbox.log');
    await runInTaskSandbox(
      {
        ...base,
        command: ORACLE,
        timeoutMs: input.agentTimeoutMs,
        logFile,
        env: { DEBIAN_FRONTEND: 'noninteractive' },
      },
      input.bwrapPath,
    );
  }
  const logFile = join(input.trialDir, 'logs', 'verifier', 'sandbox.log');
  const verifier = await runInTaskSandbox(
    { ...base, command: VERIFIER, timeoutMs: input.verifierTimeoutMs, logFile },
    input.bwrapPath,
  );
  const reward = await readReward(join(input.trialDir, 'logs', 'verifier'));
  const timeout = verifier.timedOut ? 'the verifier timed out' : undefined;
  const outcome: TrialOutcome =
    reward.reward === null
      ? {
          agent: input.agent,
          reward: null,
          error: timeout ?? reward.error,
          logDir: join(input.trialDir, 'logs'),
        }
      : { agent: input.agent, reward: reward.reward, logDir: join(input.trialDir, 'logs') };
  await writeTrialResult(input, outcome);
  return outcome;
}

async function writeTrialResult(input: HostTrialInput, outcome: TrialOutcome): Promise<void> {
  const result = {
    task_name: input.taskId,
    trial_name: `${input.taskId.slice(0, 32)}__${input.agent}`,
    agent_info: { name: input.agent },
    verifier_result: outcome.reward === null ? null : { rewards: { reward: outcome.reward } },
    exception_info: outcome.error
      ? { exception_type: 'VerifierError', exception_message: outcome.error }
      : null,
  };
  await writeFile(join(input.trialDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
}
