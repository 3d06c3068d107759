import type { RunConclusion } from '@caravel/agent';
import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  causedBy,
  triggerSource,
  uuidV5,
  type DataOf,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import type { ReplyChannel } from '@caravel/tools';
import { isAppError } from '@caravel/errors';
import { RunRepository, ThreadMessageRepository, type RunRow } from '@caravel/db';
import { MessagePublisher, type Bus, type Lease, type Subscription } from '@caravel/messaging';
import type { MessageQueue, MiddlewareEvent, QueuedMessage } from '@caravel/middleware';
import { BUS, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { isSandboxUnreachable, type Sandbox } from '@caravel/sandbox';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentFactoryService } from '../agent/agent-factory.service.js';
import { sandboxForRun } from '../agent/exit-reasons.js';
import { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import { AttemptsService } from './attempts.service.js';
import { runHumanCommand } from './human-commands.js';
import { concludeFailure, concludeStream, type StreamEnding } from './conclude-stream.js';
import { InterruptWatch, listenForInterrupts } from './interrupt-watch.js';
import { endingToPublishAgain, RunClaims } from './run-claims.js';
import { LiveOutput } from '../agent/live-output.js';
import { streamRun, type StreamOutcome } from '../agent/run-stream.js';
import { SandboxLossNotice } from '../agent/sandbox-loss.notice.js';
import { StepRecorder } from '../agent/step-recorder.js';
import { ThreadSandboxService, type ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { scmForRun } from '../scm/run-scm.js';
import { AGENT_SETTINGS, type AgentSettings } from '../agent-runner.settings.js';

/** How long a start command may go without a sign of life before the bus delivers it again. */
export const START_ACK_WAIT_MS = 30_000;

/**
 * A dead runner's lease frees its thread this long after its last renewal: well within the start
 * command's ack wait, so the command its death sends back finds the lease expired and resumes
 * the run, while a start that finds the lease live is a duplicate of a run being worked on.
 */
const LEASE_TTL_MS = START_ACK_WAIT_MS - 10_000;

function eventId(runId: string, what: string): string {
  return uuidV5(`${what}:${runId}`, CARAVEL_NAMESPACE);
}

/** Patches up to this size travel on `evt.run.finished` (bus messages are capped near 1 MiB). */
const MAX_CARRIED_SUBMISSION_BYTES = 512 * 1024;

function carriedSubmission(submission: string | null): { submission?: string | null } {
  if (submission !== null && Buffer.byteLength(submission) > MAX_CARRIED_SUBMISSION_BYTES)
    return {};
  return { submission };
}

type StartRunData = DataOf<typeof StartRunV1>;

/** What `evt.run.finished` says about a run, recorded on the run before it is published. */
type RunEnding = DataOf<typeof RunFinishedV1>;

/**
 * Who asked for the run, as `source:id` (the identity plan approval and ownership use). A run of
 * follow-ups already names its first author that way.
 */
export function requesterOf(data: Pick<StartRunData, 'source' | 'requestedBy'>): string {
  const id = data.requestedBy.externalId;
  // A run of follow-ups names its first author as `source:id` already, whatever the thread's source.
  if (triggerSource.options.some((source) => id.startsWith(`${source}:`))) return id;
  return `${data.source ?? 'synthetic'}:${id}`;
}

/** An interrupted run is healthy: the next run resumes it. */
function outcomeOf(conclusion: RunConclusion): 'completed' | 'failed' | 'interrupted' {
  if (conclusion.exitStatus === 'exit_interrupted') return 'interrupted';
  return conclusion.exitStatus.startsWith('submitted') ? 'completed' : 'failed';
}

/** How an interrupted run ends: nothing submitted, its work goes on in the next run. */
const INTERRUPTED: RunConclusion = {
  exitStatus: 'exit_interrupted',
  submission: null,
  observation: 'Interrupted: a new message arrived; the next run continues from here',
};

/** What `evt.run.started` says about the run once its sandbox and agent are ready. */
type RunStartDetails = Partial<
  Pick<EnvelopeOf<typeof RunStartedV1>['data'], 'repository' | 'branch' | 'baseCommit' | 'model'>
>;

/** What every way of running one start command shares. */
interface RunContext {
  command: EnvelopeOf<typeof StartRunV1>;
  heartbeat: () => Promise<void>;
  /** Aborted when a new message interrupts the run. */
  signal: AbortSignal;
  channel: ReplyChannel;
  /** Announces the run (once) with its starting point. */
  announce: (details: RunStartDetails) => Promise<void>;
}

/**
 * Runs one `cmd.run.start`: holds the thread's lease, gives the thread its sandbox, builds the
 * agent, streams every step to the bus, and reports how the run ended (SWE-agent exit statuses,
 * with the current diff autosubmitted on every error path). The command is acked only when the
 * run has ended; heartbeats keep it from being redelivered meanwhile.
 */
@Injectable()
export class RunExecutorService {
  private readonly log = new Logger('RunExecutor');
  private readonly claims: RunClaims;

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(ThreadSandboxService) private readonly sandboxes: ThreadSandboxService,
    @Inject(AgentFactoryService) private readonly factory: AgentFactoryService,
    @Inject(AGENT_SETTINGS) private readonly settings: AgentSettings,
    @Inject(ThreadMessageRepository) private readonly messages: ThreadMessageRepository,
    @Inject(AttemptsService) private readonly attempts: AttemptsService,
    @Inject(RunIntegrationsService) private readonly integrations: RunIntegrationsService,
    @Inject(SandboxLossNotice) private readonly sandboxLoss: SandboxLossNotice,
    @Inject(RunRepository) private readonly runs: RunRepository,
  ) {
    this.claims = new RunClaims(bus.leases, runs, runtime.name, LEASE_TTL_MS);
  }

  /**
   * Runs the command's run once: a start for a run that has ended, or that a live runner holds,
   * is acknowledged without running anything (see {@link RunClaims}).
   */
  async execute(
    command: EnvelopeOf<typeof StartRunV1>,
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const { threadId, runId } = command.data;
    const claim = await this.claims.claim(threadId, runId);
    if (claim.kind === 'held') {
      this.log.log(`run ${runId}: ${claim.holder} works on it; this start is a duplicate, not run`);
      return;
    }
    if (claim.kind === 'ended') return this.alreadyEnded(command, claim.run);
    const { lease } = claim;
    const options = (what: string) => ({
      ...causedBy(command, this.runtime.name),
      id: eventId(runId, what),
    });
    const keepAlive = setInterval(() => void this.renew(lease, heartbeat), LEASE_TTL_MS / 4);
    let announced = false;
    const announce = async (details: RunStartDetails = {}): Promise<void> => {
      if (announced) return;
      announced = true;
      await this.publisher.publish(
        RunStartedV1,
        { threadId, runId, runner: this.runtime.name, prompt: command.data.prompt, ...details },
        options('started'),
      );
    };
    try {
      const conclusion = await this.run(command, heartbeat, announce);
      await announce();
      const ending: RunEnding = {
        threadId,
        runId,
        outcome: outcomeOf(conclusion),
        exitStatus: conclusion.exitStatus,
        summary: conclusion.observation.slice(0, 4000),
        ...carriedSubmission(conclusion.submission),
      };
      // Recorded before it goes out: from here on, a start for this run runs nothing.
      await this.runs.recordConclusion(runId, ending);
      await this.publisher.publish(RunFinishedV1, ending, options('finished'));
    } finally {
      clearInterval(keepAlive);
      await this.sandboxes.release(threadId);
      await this.bus.leases.release(lease).catch(() => false);
    }
  }

  /**
   * A start for a run that has ended runs nothing. A runner that concluded the run but died before
   * dispatch recorded its end left the ending on the run: it goes out again (same id).
   */
  private async alreadyEnded(command: EnvelopeOf<typeof StartRunV1>, run: RunRow): Promise<void> {
    const ending = endingToPublishAgain(run);
    if (ending) {
      await this.publisher.publish(RunFinishedV1, ending, {
        ...causedBy(command, this.runtime.name),
        id: eventId(run.id, 'finished'),
      });
      this.log.log(
        `run ${run.id} was concluded before: its ending is published again, not the run`,
      );
      return;
    }
    const how = run.exitStatus ? `${run.status}, ${run.exitStatus}` : run.status;
    this.log.log(`run ${run.id} has ended (${how}): this start is acknowledged, nothing run`);
  }

  private async run(
    command: EnvelopeOf<typeof StartRunV1>,
    heartbeat: () => Promise<void>,
    announce: (details: RunStartDetails) => Promise<void>,
  ): Promise<RunConclusion> {
    const { threadId, repository, options } = command.data;
    const watch = new InterruptWatch(
      () => this.messages.interruptWaiting(threadId),
      this.settings.RUN_INTERRUPT_POLL_MS,
    );
    const notices = await this.listenForInterrupts(threadId, watch);
    const context: RunContext = {
      command,
      heartbeat,
      signal: watch.signal,
      channel: this.integrations.replyChannel(command.data),
      announce: (details) => announce({ ...(repository ? { repository } : {}), ...details }),
    };
    try {
      const ending =
        (options.attempts ?? 1) > 1 ? await this.runAttempts(context) : await this.runOnce(context);
      if (ending.kind === 'interrupted') return INTERRUPTED;
      if (ending.kind === 'failed') await this.reportFailure(context, ending.error);
      return ending.conclusion;
    } finally {
      watch.stop();
      await notices?.drain().catch(() => undefined);
    }
  }

  /** Dispatch's notices of interrupting follow-ups; without them the watch's poll still finds them. */
  private async listenForInterrupts(
    threadId: string,
    watch: InterruptWatch,
  ): Promise<Subscription | undefined> {
    return listenForInterrupts(this.bus, threadId, watch).catch((error: unknown) => {
      this.log.warn(`thread ${threadId}: no interrupt notices, polling only: ${String(error)}`);
      return undefined;
    });
  }

  /** One agent in the thread's own sandbox. */
  private async runOnce(context: RunContext): Promise<StreamEnding> {
    const { threadId, repository } = context.command.data;
    const recorder = new StepRecorder(this.publisher, context.command, this.runtime.name);
    const live = this.liveOutput(context.command);
    let workspace: ThreadWorkspace | undefined;
    try {
      return await concludeStream({
        recorder,
        signal: context.signal,
        diff: () => (workspace ? workspace.tools.diff() : Promise.reject(new Error('no sandbox'))),
        stream: async () => {
          workspace = await sandboxForRun(
            this.sandboxes.forRun(threadId, repository, {
              onExecOutput: (text) => live.push(text),
            }),
          );
          return this.stream(context, workspace, recorder);
        },
      });
    } finally {
      await live.close();
    }
  }

  /** The run's commands' output as it comes, published for a live view (`RunOutputV1`). */
  private liveOutput(command: EnvelopeOf<typeof StartRunV1>): LiveOutput {
    const { threadId, runId } = command.data;
    return new LiveOutput(
      async (piece) => {
        await this.publisher.publish(
          RunOutputV1,
          { threadId, runId, ...piece },
          causedBy(command, this.runtime.name),
        );
      },
      (error) => this.log.warn(`run ${runId}: live output not sent: ${String(error)}`),
    );
  }

  /** Retry-and-select: attempts in sandboxes of their own, the winner adopted by the thread. */
  private async runAttempts(context: RunContext): Promise<StreamEnding> {
    const { command, channel } = context;
    try {
      const conclusion = await this.attempts.run(command, {
        heartbeat: context.heartbeat,
        signal: context.signal,
        reply: (text) => this.replyOrLog(channel, command.data.threadId, text),
        scmFor: (thread) => scmForRun(thread, this.integrations.pullRequestHost(command.data)),
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
    workspace: ThreadWorkspace,
    recorder: StepRecorder,
  ): Promise<StreamOutcome> {
    const { command } = context;
    const { threadId, runId, prompt, options } = command.data;
    const built = await this.factory.build({
      threadId,
      runId,
      options,
      workspace,
      channel: context.channel,
      scm: scmForRun(workspace, this.integrations.pullRequestHost(command.data)),
      requestedBy: requesterOf(command.data),
      channelPorts: this.integrations.channelPorts(command.data),
      ...this.integrations.assistantStatus(command.data),
      notifier: {
        notifyStepLimit: (notice) =>
          Promise.resolve(
            this.log.warn(`thread ${notice.threadId}: ${notice.remaining} model calls left`),
          ),
      },
      events: { emit: (event) => this.onMiddlewareEvent(threadId, event, recorder) },
      fileRoot: this.settings.CARAVEL_FILE_ROOT,
      ...this.followUps(runId, workspace.sandbox),
    });
    await context.announce({
      branch: workspace.branch,
      baseCommit: workspace.baseCommit,
      model: `${built.model.provider}:${built.model.modelId}`,
    });
    const outcome = await streamRun(
      built,
      { threadId, runId, prompt },
      recorder,
      context.heartbeat,
      context.signal,
    );
    if (outcome.resumed) this.log.log(`run ${runId} resumed from its checkpoint`);
    return outcome;
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

  /** The run's view of its thread's follow-ups: taken (by this run only) before model calls. */
  private followUps(
    runId: string,
    sandbox: Sandbox,
  ): {
    queue: MessageQueue;
    isTrustedAuthor: (author: string) => boolean;
  } {
    const trusted = new Set<string>();
    return {
      queue: {
        drain: async (threadId) => {
          const taken = await this.messages.take(threadId, runId);
          for (const message of taken) if (message.trusted) trusted.add(message.author);
          const drained: QueuedMessage[] = [];
          for (const message of taken) {
            // A person's command (human takeover) runs now, between the agent's steps.
            drained.push(
              message.kind === 'command'
                ? await runHumanCommand(sandbox, message)
                : { id: message.id, text: message.text, author: message.author },
            );
          }
          return drained;
        },
      },
      isTrustedAuthor: (author) => trusted.has(author),
    };
  }

  /** Refused answers go to the trajectory; everything else a middleware reports is logged. */
  private onMiddlewareEvent(
    threadId: string,
    event: MiddlewareEvent,
    recorder: StepRecorder,
  ): void {
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

  private async renew(lease: Lease, heartbeat: () => Promise<void>): Promise<void> {
    await heartbeat().catch(() => undefined);
    const renewed = await this.bus.leases.renew(lease, LEASE_TTL_MS).catch(() => null);
    if (renewed) Object.assign(lease, renewed);
  }
}
