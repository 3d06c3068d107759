import type { Sandbox, SandboxProvider } from '@caravel/sandbox';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { sessionFailure } from '../agent/agent-failure.js';
import { sessionAgent, sessionTools } from '../agent/session-agent.js';
import { isTestFile } from '../rules/test-files.js';
import { chownToSandbox, type BuiltEnvironment } from '../validate/host-build.js';
import { runHostTrial } from '../validate/host-trial.js';
import type { TaskTimeouts } from '../validate/task-config.js';
import { ChangeTracker, copyTree, hostWorkdir } from './trial-workspace.js';

/** Where an agent trial's agent runs and with what. */
export interface AgentTrialSettings {
  readonly model: BaseChatModel;
  readonly provider: SandboxProvider;
  /** The host directory of a sandbox's workspace (`<rootDir>/<id>/workspace`). */
  readonly hostWorkspace: (sandboxId: string) => string;
  /** Most model calls per trial (default 40). */
  readonly maxModelCalls?: number;
  readonly bwrapPath?: string;
}

/** One trial to run on a built environment. */
export interface AgentTrialInput extends AgentTrialSettings {
  readonly taskDir: string;
  readonly taskId: string;
  readonly instruction: string;
  readonly environment: BuiltEnvironment;
  readonly timeouts: TaskTimeouts;
  /** A fresh directory for this trial. */
  readonly trialDir: string;
}

/** What the trial produced, before classification. */
export interface AgentTrialRun {
  readonly reward: number | null;
  readonly rewardError?: string;
  readonly agentError?: string;
  readonly diff: string;
  readonly changedPaths: readonly string[];
  readonly trajectory: string;
  /** The trial's logs (`agent/` and `verifier/`). */
  readonly logDir: string;
}

const SYSTEM_PROMPT = `You are Caravel's coding agent, solving a task in a repository.
Your working directory is the repository; in the task's environment it is /app/src, so read a path
/app/src/x as x. There is no network. The tests that will check your work are hidden: change the
code so that the behaviour the task describes is right, and write your own checks if you need them.
Call finish when you are done.`;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} [...]`;
}

/** The session as lines: what the agent said and called, and what each tool answered. */
export function condenseTrajectory(messages: readonly BaseMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const type = message.getType();
    const text = typeof message.content === 'string' ? message.content : message.text;
    if (type === 'ai') {
      if (text.trim()) lines.push(`agent: ${clip(text.trim(), 400)}`);
      const calls = (message as { tool_calls?: { name: string; args: unknown }[] }).tool_calls;
      for (const call of calls ?? [])
        lines.push(`call ${call.name} ${clip(JSON.stringify(call.args), 300)}`);
    } else if (type === 'tool') lines.push(`  -> ${clip(text.trim(), 500)}`);
  }
  return lines.join('\n');
}

async function runAgent(
  input: AgentTrialInput,
  sandbox: Sandbox,
): Promise<{ messages: BaseMessage[]; error?: string }> {
  const tools = sessionTools(sandbox, [], 'once the task is done (or when you cannot do it)');
  const agent = sessionAgent(input.model, tools, SYSTEM_PROMPT);
  const calls = input.maxModelCalls ?? 40;
  let messages: BaseMessage[] = [];
  try {
    const stream = await agent.stream(
      { messages: [{ role: 'user', content: input.instruction }] },
      {
        streamMode: 'values',
        recursionLimit: calls * 2 + 1,
        signal: AbortSignal.timeout(input.timeouts.agentMs),
      },
    );
    for await (const state of stream) messages = state.messages;
    return { messages };
  } catch (failure) {
    return { messages, error: sessionFailure(failure) };
  }
}

/**
 * One trial of Caravel's agent: the built repository is copied into a fresh sandbox, the agent
 * works on it with the instruction (no tests, no network), its tree is put back into a copy of
 * the environment, and that is verified exactly as a validation trial is (tests copied in,
 * test.sh run, the reward read). A model rate limit aborts (RATE_LIMITED).
 */
export async function runAgentTrial(input: AgentTrialInput): Promise<AgentTrialRun> {
  await mkdir(input.trialDir, { recursive: true });
  const sandbox = await input.provider.create({ defaultTimeoutMs: 600_000 });
  const workspace = input.hostWorkspace(sandbox.id);
  const tracker = new ChangeTracker(workspace, join(input.trialDir, 'changes.git'));
  const appDir = join(input.trialDir, 'env', 'app');
  let session: { messages: BaseMessage[]; error?: string };
  let changes: { diff: string; paths: string[] };
  try {
    await copyTree(hostWorkdir(input.environment), workspace);
    await tracker.snapshot();
    await chownToSandbox(workspace);
    session = await runAgent(input, sandbox);
    // Nothing of the agent's may still run while the host reads its tree (no path can be
    // swapped for a link under the copy or the diff).
    await sandbox.close();
    await copyTree(input.environment.appDir, appDir);
    const repoInApp = join(
      appDir,
      relative(input.environment.appDir, hostWorkdir(input.environment)),
    );
    await copyTree(workspace, repoInApp);
    changes = await tracker.diff();
  } finally {
    await sandbox.close().catch(() => undefined);
    await input.provider.delete(sandbox.id).catch(() => undefined);
  }
  const verified = await runHostTrial({
    agent: 'nop',
    taskDir: input.taskDir,
    taskId: input.taskId,
    environment: { ...input.environment, appDir },
    trialDir: join(input.trialDir, 'verify'),
    agentTimeoutMs: input.timeouts.agentMs,
    verifierTimeoutMs: input.timeouts.verifierMs,
    ...(input.bwrapPath ? { bwrapPath: input.bwrapPath } : {}),
  });
  const logDir = join(input.trialDir, 'verify', 'logs');
  const trajectory = condenseTrajectory(session.messages);
  await writeFile(join(logDir, 'agent', 'trajectory.txt'), `${trajectory}\n`);
  await writeFile(join(logDir, 'agent', 'changes.diff'), changes.diff);
  return {
    reward: verified.reward,
    ...(verified.error ? { rewardError: verified.error } : {}),
    ...(session.error ? { agentError: session.error } : {}),
    diff: changes.diff,
    changedPaths: changes.paths,
    trajectory,
    logDir,
  };
}

/** The changed paths that are test files (a hint of a bad success). */
export function testFilesAmong(paths: readonly string[]): string[] {
  return paths.filter((path) => isTestFile(path));
}

/** The end of a trial's verifier output. */
export async function testOutputTail(logDir: string, lines = 60): Promise<string> {
  const text = await readFile(join(logDir, 'verifier', 'test-stdout.txt'), 'utf8').catch(() => '');
  return text.split('\n').slice(-lines).join('\n');
}
