import type { RunConclusion } from '@caravel/agent';
import { threadBranch, type EnvelopeOf, type StartRunV1 } from '@caravel/contracts';
import { isAppError } from '@caravel/errors';
import type { MiddlewareEvent } from '@caravel/middleware';
import { isSandboxUnreachable } from '@caravel/sandbox';
import type { ReplyChannel, ScmPort } from '@caravel/tools';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AgentFactoryService, type AgentRunInputs } from '../agent/agent-factory.service.js';
import { budgetOfRun, RunBudgets } from '../agent/budget-of-run.js';
import { sandboxForRun } from '../agent/exit-reasons.js';
import { requesterOf } from '../agent/run-people.js';
import { followUpsHeld, streamRun, type StreamOutcome } from '../agent/run-stream.js';
import { RunTodoList } from '../agent/run-todos.js';
import { SandboxLossNotice } from '../agent/sandbox-loss.notice.js';
import { sourceContext, withSourceContext } from '../agent/source-context.js';
import type { StepRecorder } from '../agent/step-recorder.js';
import { RunToolBundles } from '../agent/tool-bundles.js';
import { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import { RunWorkspaces, type RunWorkspace } from '../sandbox/run-workspaces.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { scmForRun, scmOfRun } from '../scm/run-scm.js';
import { forkWorkspace } from '../scm/fork-pull-request.scm.js';
import { PublishRecord } from '../scm/publish-record.js';
import {
  onPullRequestBranch,
  trustedBaseOf,
  workBranchOf,
  type RunSubject,
} from '../scm/run-subject.js';
import { RunSubjectService } from '../scm/run-subject.service.js';
import { AttemptsService } from './attempts.service.js';
import { handedBack, handsBack, STAYS } from './hand-back.js';
import {
  concludeFailure,
  concludeStream,
  INTERRUPTED,
  type StreamEnding,
} from './conclude-stream.js';
import { LeaseKeeper } from './lease-keeper.js';
import { PullRequestChatService } from './pr-chat.service.js';
import { RunEventPublisher, type RunEvents, type RunStartDetails } from './run-events.js';
import { RunFollowUps } from './run-follow-ups.service.js';

type StartRun = EnvelopeOf<typeof StartRunV1>;

/** What every way of running one start command shares. */
interface RunContext {
  command: StartRun;
  heartbeat: () => Promise<void>;
  /** Aborted when a new message interrupts the run. */
  signal: AbortSignal;
  channel: ReplyChannel;
  events: RunEvents;
  /** Announces the run (once) with its starting point. */
  announce: (details: RunStartDetails) => Promise<void>;
  /** A single run's dollar budget and where it pauses (attempts share their run's). */
  budget?: Pick<AgentRunInputs, 'budgetUsd' | 'budgetPause'>;
}

/**
 * Runs one `cmd.run.start` from its claim to its conclusion: the thread's lease
 * ({@link LeaseKeeper}: each run once, one run per thread), the thread's sandbox, the agent
 * (built with the run's SCM and reply channel), its stream to the end, and how the run ended
 * (SWE-agent exit statuses, with the current diff autosubmitted on every error path), all told on
 * the bus ({@link RunEventPublisher}). The command is acked only when the run has ended.
 */
@Injectable()
export class RunExecutorService {
  private readonly log = new Logger('RunExecutor');

  constructor(
    @Inject(LeaseKeeper) private readonly keeper: LeaseKeeper,
    @Inject(RunEventPublisher) private readonly events: RunEventPublisher,
    @Inject(RunWorkspaces) private readonly sandboxes: RunWorkspaces,
    @Inject(AgentFactoryService) private readonly factory: AgentFactoryService,
    @Inject(RunIntegrationsService) private readonly integrations: RunIntegrationsService,
    @Inject(RunFollowUps) private readonly followUps: RunFollowUps,
    @Inject(AttemptsService) private readonly attempts: AttemptsService,
    @Inject(SandboxLossNotice) private readonly sandboxLoss: SandboxLossNotice,
    @Inject(RunSubjectService) private readonly subjects: RunSubjectService,
    @Optional() @Inject(RunToolBundles) private readonly toolBundles?: RunToolBundles,
    @Optional() @Inject(RunBudgets) private readonly budgets?: RunBudgets,
    @Optional() @Inject(PullRequestChatService) private readonly prChat?: PullRequestChatService,
  ) {}

  /**
   * Runs the command's run once: a start for a run that has ended, or that a live runner holds,
   * is acknowledged without running anything. When `stopping` aborts (this runner shuts down),
   * the run stops at a safe point, is not ended, and is handed back ({@link handedBack}).
   */
  async execute(command: StartRun, heartbeat: () => Promise<void>, stopping = STAYS) {
    const { threadId, runId } = command.data;
    const claim = await this.keeper.claim(threadId, runId);
    if (claim.kind === 'held') {
      this.log.log(`run ${runId}: ${claim.holder} works on it; this start is a duplicate, not run`);
      return;
    }
    if (claim.kind === 'ended') return this.events.answerEndedStart(command, claim.run);
    const events = this.events.forRun(command);
    await this.keeper.hold(claim.lease, heartbeat, async () => {
      try {
        await events.finish(await this.run(command, heartbeat, events, stopping));
      } finally {
        await this.sandboxes.release(threadId);
      }
    });
  }

  private async run(
    command: StartRun,
    heartbeat: () => Promise<void>,
    events: RunEvents,
    stopping: AbortSignal,
  ): Promise<RunConclusion> {
    const { threadId, repository, options } = command.data;
    const question = this.prChat?.questionOf(command.data);
    if (this.prChat && question) {
      const channel = this.integrations.replyChannel(command.data);
      const back = { signal: stopping, stopped: () => handedBack(command) };
      return this.prChat.answer(command.data, question, channel, (d) => events.announce(d), back);
    }
    const watch = await this.followUps.watch(threadId);
    const context: RunContext = {
      command,
      heartbeat,
      signal: AbortSignal.any([watch.signal, stopping]),
      channel: this.integrations.replyChannel(command.data),
      events,
      announce: (details) => events.announce({ ...(repository ? { repository } : {}), ...details }),
    };
    try {
      const ending =
        (options.attempts ?? 1) > 1 ? await this.runAttempts(context) : await this.runOnce(context);
      if (handsBack(ending, watch.signal)) throw handedBack(command);
      if (ending.kind === 'interrupted') return INTERRUPTED;
      if (ending.kind === 'failed') await this.reportFailure(context, ending.error);
      return ending.conclusion;
    } finally {
      await watch.stop();
    }
  }

  /**
   * One agent in the thread's own sandbox. A submission whose changes did not reach the run's pull
   * request ends `submitted (exit_unpublished)` ({@link PublishRecord}), never a clean success.
   */
  private async runOnce(context: RunContext): Promise<StreamEnding> {
    const { threadId, repository } = context.command.data;
    const recorder = context.events.steps();
    const live = context.events.liveOutput();
    const publishing = new PublishRecord();
    let workspace: RunWorkspace | undefined;
    try {
      const ending = await concludeStream({
        recorder,
        signal: context.signal,
        diff: () => (workspace ? workspace.tools.diff() : Promise.reject(new Error('no sandbox'))),
        stream: async () => {
          // What the run was asked on decides its branch: a pull request's own, else the thread's.
          const subject = await this.subjects.resolve(context.command.data);
          const target = workBranchOf(subject, threadBranch(threadId), repository);
          const onOutput = (text: string) => live.push(text);
          const acquiring = sandboxForRun(
            this.sandboxes.acquire(context.command.data, target, onOutput, context.signal),
          );
          workspace =
            subject.kind === 'fork'
              ? await forkWorkspace(acquiring, subject.pull, (text) =>
                  this.tellFailure(context, text),
                )
              : await acquiring;
          const budget = await budgetOfRun(this.budgets, {
            threadId,
            runId: context.command.data.runId,
            requestedBy: requesterOf(context.command.data),
            workspace,
            channel: context.channel,
          });
          return this.stream({ ...context, budget }, workspace, recorder, publishing, subject);
        },
      });
      if (ending.kind !== 'ended') return ending;
      return { kind: 'ended', conclusion: publishing.conclude(ending.conclusion) };
    } finally {
      await live.close();
    }
  }

  /** Retry-and-select: attempts in sandboxes of their own, the winner adopted by the thread. */
  private async runAttempts(context: RunContext): Promise<StreamEnding> {
    const { command, channel } = context;
    const { repository } = command.data;
    try {
      const conclusion = await this.attempts.run(command, {
        heartbeat: context.heartbeat,
        signal: context.signal,
        reply: (text) => this.replyOrLog(channel, command.data.threadId, text),
        scmFor: (thread) => scmForRun(thread, this.integrations.pullRequestHost(command.data)),
        instructionsFor: (attempt) =>
          this.integrations.instructionFiles(command.data, repository?.baseBranch, attempt.sandbox),
        announce: context.announce,
      });
      return { kind: 'ended', conclusion };
    } catch (error) {
      return concludeFailure(error, {
        signal: context.signal,
        diff: () => Promise.reject(new Error('no sandbox of its own')),
      });
    }
  }

  /** Builds the run's agent in its workspace, announces the run, and streams it to its end. */
  private async stream(
    context: RunContext,
    workspace: RunWorkspace,
    recorder: StepRecorder,
    publishing: PublishRecord,
    subject: RunSubject = { kind: 'none' },
  ): Promise<StreamOutcome> {
    const { threadId, runId } = context.command.data;
    const onItsBranch = onPullRequestBranch(subject, workspace);
    const scm = publishing.track(
      scmOfRun({
        run: context.command.data,
        workspace,
        subject,
        onItsBranch,
        github: this.integrations,
        tell: (text) => this.replyOrLog(context.channel, threadId, text),
      }),
    );
    // SWE-agent bundles: installed before the agent is built (their commands are in its prompt).
    const bundles = await this.toolBundles?.open(workspace.sandbox);
    if (bundles) recorder.recordStateWith((callIds) => bundles.takeState(callIds));
    const built = await this.factory.build({
      ...this.agentInputs(context, workspace, recorder, scm, publishing),
      ...(bundles ? { toolBundles: bundles } : {}),
      // The repository's instructions as its base has them on GitHub, never the branch's.
      instructions: this.integrations.instructionFiles(
        context.command.data,
        trustedBaseOf(subject, context.command.data.repository),
        workspace.sandbox,
      ),
    });
    const askedOn = sourceContext(
      onItsBranch || subject.kind !== 'pull-request' ? subject : { kind: 'none' },
      workspace.baseCommit,
    );
    const prompt = withSourceContext(context.command.data.prompt, askedOn, workspace.startNote);
    await context.announce({
      branch: workspace.branch,
      baseCommit: workspace.baseCommit,
      model: `${built.model.provider}:${built.model.modelId}`,
      systemPrompt: built.systemPrompt,
      prompt,
    });
    const run = { threadId, runId, prompt };
    try {
      const outcome = await streamRun(built, run, recorder, context.heartbeat, context.signal);
      if (outcome.resumed) this.log.log(`run ${runId} resumed from its checkpoint`);
      return outcome;
    } finally {
      // Before the run's end is announced: dispatch then starts a run for what waits.
      await this.followUps.settle(threadId, runId, () => followUpsHeld(built, threadId));
    }
  }

  /** What the run's agent is built from: its workspace, SCM, channels, people and follow-ups. */
  private agentInputs(
    context: RunContext,
    workspace: ThreadWorkspace,
    recorder: StepRecorder,
    scm: ScmPort,
    publishing: PublishRecord,
  ): Omit<AgentRunInputs, 'instructions'> {
    const run = context.command.data;
    const todos = new RunTodoList();
    return {
      threadId: run.threadId,
      runId: run.runId,
      options: run.options,
      workspace,
      channel: todos.replies(context.channel),
      scm,
      requestedBy: requesterOf(run),
      request: run.prompt,
      ...context.budget,
      channelPorts: this.integrations.channelPorts(run),
      ...this.integrations.assistantStatus(run),
      notifier: {
        notifyStepLimit: (notice) =>
          Promise.resolve(
            this.log.warn(`thread ${notice.threadId}: ${notice.remaining} model calls left`),
          ),
      },
      events: {
        emit: (event) => this.onMiddlewareEvent(run.threadId, event, recorder, publishing),
      },
      work: todos.recording(context.events),
      signal: context.signal,
      ...this.followUps.queue(run.runId, workspace.sandbox),
    };
  }

  /** Posts the run's own failure notice (dispatch adds no generic reply); a failure is logged. */
  private async tellFailure(context: RunContext, text: string): Promise<void> {
    const { runId } = context.command.data;
    await this.sandboxLoss.post(context.channel, runId, text).catch((error: unknown) => {
      this.log.warn(`run ${runId}: could not tell the user: ${String(error)}`);
    });
  }

  /** Says why a run failed; a sandbox that holds work and cannot be reached is the user's call. */
  private async reportFailure(context: RunContext, error: unknown): Promise<void> {
    const { runId } = context.command.data;
    this.log.warn(
      `run ${runId} ended by ${isAppError(error) ? error.code : 'error'}: ${String(error)}`,
    );
    // The thread's sandbox was not replaced: the user gets one clear message (and no other).
    if (isSandboxUnreachable(error)) await this.sandboxLoss.tell(context.channel, runId, error);
  }

  /**
   * Refused answers go to the trajectory, an unmet pull request policy to the run's publish
   * record; everything else a middleware reports is logged.
   */
  private onMiddlewareEvent(
    threadId: string,
    event: MiddlewareEvent,
    recorder: StepRecorder,
    publishing: PublishRecord,
  ): void {
    if (event.type === 'pull_request_policy_unmet') publishing.notePolicyUnmet();
    if (event.type === 'requery') {
      const { reply, failure, message } = event;
      recorder.noteFailedAttempt({ ...reply, failure, message });
    }
    if (event.type === 'model_call_cost') return;
    this.log.log(`thread ${threadId}: ${event.type}`);
  }

  /** A reply the runner itself makes: a failure to post it is logged, never the run's end. */
  private async replyOrLog(channel: ReplyChannel, threadId: string, text: string): Promise<void> {
    await channel.reply(text).catch((error: unknown) => {
      const code = isAppError(error) ? error.code : 'error';
      this.log.warn(`thread ${threadId}: could not reply (${code}): ${String(error)}`);
    });
  }
}
