import type { AttemptResult, ModelStats, RunConclusion } from '@caravel/agent';
import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  RunStartedV1,
  causedBy,
  uuidV5,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import type { MessagePublisher } from '@caravel/messaging';
import type { MiddlewareEvent } from '@caravel/middleware';
import type { AgentFactoryService } from '../agent/agent-factory.service.js';
import { sandboxForRun } from '../agent/exit-reasons.js';
import { streamRun } from '../agent/run-stream.js';
import { StepRecorder } from '../agent/step-recorder.js';
import type { InstructionFiles } from '../agent/agents-file-finder.js';
import type { ThreadSandboxService, ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { concludeStream } from './conclude-stream.js';
import { runOutcomeOf, RunWorkPublisher } from './run-events.js';
import type { HeldPublication } from '../scm/held.scm.js';
import { scmForAttempt } from '../scm/run-scm.js';

/** One attempt's outcome: its run id is its trajectory (the events of that run). */
export interface AttemptOutcome extends AttemptResult<string> {
  publication: HeldPublication;
  /** What the attempt told the user; only the winner's replies are posted. */
  replies: string[];
}

/** What every attempt of one run shares. */
export interface AttemptRunContext {
  command: EnvelopeOf<typeof StartRunV1>;
  runner: string;
  fileRoot: string;
  heartbeat: () => Promise<void>;
  signal: AbortSignal;
  publisher: MessagePublisher;
  sandboxes: ThreadSandboxService;
  factory: AgentFactoryService;
  /** Where the attempt reads the repository's AGENTS.md files (its run's source). */
  instructionsFor: (workspace: ThreadWorkspace) => InstructionFiles;
}

const NO_STATS: ModelStats = { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 0 };

/** The ids of attempt `index` of a run: its own sandbox thread and its own run. */
export function attemptIds(runId: string, index: number): { threadId: string; runId: string } {
  return {
    threadId: uuidV5(`attempt-thread:${runId}:${index}`, CARAVEL_NAMESPACE),
    runId: uuidV5(`attempt-run:${runId}:${index}`, CARAVEL_NAMESPACE),
  };
}

/**
 * Runs attempt `index` of a retry-and-select run: a fresh sandbox (a thread of its own) at the
 * HEAD of the thread's sandbox, a fresh conversation, its own run id (so its own `.traj`), the attempt's model, and a budget of what
 * is left. Its commits stay in its sandbox; what it asked to publish is held for the selection.
 */
export async function runAttempt(
  context: AttemptRunContext,
  index: number,
  model: string | undefined,
  budgetUsd: number | null,
): Promise<AttemptOutcome> {
  const { command, publisher } = context;
  const parent = command.data;
  const ids = attemptIds(parent.runId, index);
  const attemptCommand = { ...command, data: { ...parent, runId: ids.runId } };
  const recorder = new StepRecorder(publisher, attemptCommand, context.runner);
  // The attempt starts where its thread is (its commits so far), not from the base branch.
  const workspace = await sandboxForRun(
    context.sandboxes.forRun(ids.threadId, parent.repository, { startFrom: parent.threadId }),
  );
  const scm = scmForAttempt(workspace, index);
  const replies: string[] = [];
  let stats = NO_STATS;
  const onEvent = (event: MiddlewareEvent): void => {
    if (event.type === 'requery') {
      recorder.noteFailedAttempt({
        ...event.reply,
        failure: event.failure,
        message: event.message,
      });
    }
    if (event.type !== 'model_call_cost') return;
    const { costUsd, tokensSent, tokensReceived, calls } = event.totals;
    stats = { instanceCost: costUsd, tokensSent, tokensReceived, apiCalls: calls };
  };
  const publishOptions = (what: string) => ({
    ...causedBy(command, context.runner),
    id: uuidV5(`${what}:${ids.runId}`, CARAVEL_NAMESPACE),
  });
  try {
    const built = await context.factory.build({
      threadId: ids.threadId,
      runId: ids.runId,
      options: { ...parent.options, ...(model ? { model } : {}) },
      workspace,
      scm,
      instructions: context.instructionsFor(workspace),
      ...(budgetUsd === null ? {} : { budgetUsd }),
      channel: { reply: (text) => Promise.resolve({ messageId: `${replies.push(text)}` }) },
      notifier: { notifyStepLimit: () => Promise.resolve() },
      events: { emit: onEvent },
      fileRoot: context.fileRoot,
      queue: { drain: () => Promise.resolve([]) },
      isTrustedAuthor: () => false,
      work: new RunWorkPublisher(publisher, attemptCommand, context.runner),
      signal: context.signal,
    });
    await publisher.publish(
      RunStartedV1,
      {
        threadId: parent.threadId,
        runId: ids.runId,
        runner: context.runner,
        prompt: parent.prompt,
        branch: workspace.branch,
        baseCommit: workspace.baseCommit,
        model: `${built.model.provider}:${built.model.modelId}`,
        attemptOf: parent.runId,
        ...(parent.repository ? { repository: parent.repository } : {}),
      },
      publishOptions('started'),
    );
    const conclusion = await conclude(context, built, ids, recorder, () => workspace.tools.diff());
    await publisher.publish(
      RunFinishedV1,
      {
        threadId: parent.threadId,
        runId: ids.runId,
        outcome: runOutcomeOf(conclusion.exitStatus),
        exitStatus: conclusion.exitStatus,
        summary: conclusion.observation.slice(0, 4000),
        submission: conclusion.submission,
        attemptOf: parent.runId,
      },
      publishOptions('finished'),
    );
    return {
      exitStatus: conclusion.exitStatus,
      submission: conclusion.submission,
      stats,
      trajectory: ids.runId,
      publication: scm.held,
      replies,
    };
  } finally {
    await context.sandboxes.release(ids.threadId);
  }
}

async function conclude(
  context: AttemptRunContext,
  built: Awaited<ReturnType<AgentFactoryService['build']>>,
  ids: { threadId: string; runId: string },
  recorder: StepRecorder,
  diff: () => Promise<string>,
): Promise<RunConclusion> {
  const run = { ...ids, prompt: context.command.data.prompt };
  const ending = await concludeStream({
    recorder,
    diff,
    signal: context.signal,
    stream: () => streamRun(built, run, recorder, context.heartbeat, context.signal),
  });
  // An interrupt ends the whole run, not one attempt.
  if (ending.kind === 'interrupted') throw ending.error;
  return ending.conclusion;
}
