import { parseExitStatus, type ExitStatus, type RunConclusion } from '@caravel/agent';
import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunSubagentV1,
  RunTodosV1,
  causedBy,
  uuidV5,
  type DataOf,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import { RunRepository, type RunRow } from '@caravel/db';
import { MessagePublisher } from '@caravel/messaging';
import { runsFinished } from '@caravel/metrics';
import { RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LiveOutput } from '../agent/live-output.js';
import { StepRecorder } from '../agent/step-recorder.js';
import type { RunWorkEvents, SubagentEvent } from '../agent/subagents.js';
import type { TodoItem } from '@caravel/tools';

type StartRun = EnvelopeOf<typeof StartRunV1>;

/** What `evt.run.finished` says about a run, recorded on the run before it is published. */
export type RunEnding = DataOf<typeof RunFinishedV1>;

/**
 * How a run concluded, as {@link RunEvents.finish} tells it: with why its changes are not in its
 * pull request when its publish record knows a coded reason (`PublishRecord.conclude`).
 */
export type RunFinish = RunConclusion & Pick<RunEnding, 'unpublished'>;

/** What `evt.run.started` says about the run once its sandbox and agent are ready. */
export type RunStartDetails = Partial<
  Pick<
    DataOf<typeof RunStartedV1>,
    'repository' | 'branch' | 'baseCommit' | 'model' | 'systemPrompt' | 'prompt'
  >
>;

/** A system prompt up to this size travels on `evt.run.started` (bus messages are capped near 1 MiB). */
const MAX_CARRIED_SYSTEM_PROMPT_BYTES = 256 * 1024;

/** Patches up to this size travel on `evt.run.finished` (bus messages are capped near 1 MiB). */
const MAX_CARRIED_SUBMISSION_BYTES = 512 * 1024;

/** The id of a run's `what` event: the same for every runner, so a repeat is deduplicated. */
function eventId(runId: string, what: string): string {
  return uuidV5(`${what}:${runId}`, CARAVEL_NAMESPACE);
}

function carriedSubmission(submission: string | null): { submission?: string | null } {
  if (submission !== null && Buffer.byteLength(submission) > MAX_CARRIED_SUBMISSION_BYTES)
    return {};
  return { submission };
}

/**
 * How a run ended, for dispatch and the people waiting on it. It completed only when its agent
 * submitted on its own (`submitted`). An interrupted run is healthy: the next run resumes it; so
 * is one paused at its budget. Every other ending failed what it was asked, its changes
 * autosubmitted or not: a limit, an error, the agent giving up, or a submission no pull request
 * holds (dispatch says so, once, in the thread).
 */
export function runOutcomeOf(exitStatus: ExitStatus): RunEnding['outcome'] {
  const { submitted, reason } = parseExitStatus(exitStatus);
  if (reason === 'exit_interrupted' || reason === 'exit_budget_paused') return 'interrupted';
  return submitted && reason === null ? 'completed' : 'failed';
}

/**
 * The ending a runner recorded for a run whose end dispatch has not recorded (the runner died
 * between the two): what a start for that run publishes again. Null for any other run.
 */
export function endingToPublishAgain(run: RunRow): RunEnding | null {
  if (run.finishedAt !== null || run.concludedAt === null) return null;
  const ending = RunFinishedV1.dataSchema.safeParse(run.conclusion);
  return ending.success ? ending.data : null;
}

/**
 * Everything one run tells the bus, caused by its start command and under ids derived from the
 * run: `evt.run.started` (once), its steps (`evt.run.step`, through its {@link StepRecorder}),
 * its commands' live output (`evt.run.output`) and `evt.run.finished`.
 */
export class RunEvents implements RunWorkEvents {
  private announced = false;
  private readonly log = new Logger('RunEvents');
  private readonly work: RunWorkPublisher;

  constructor(
    private readonly publisher: MessagePublisher,
    private readonly runs: Pick<RunRepository, 'recordConclusion'>,
    private readonly command: StartRun,
    private readonly runner: string,
  ) {
    this.work = new RunWorkPublisher(publisher, command, runner);
  }

  /**
   * Announces the run with its starting point; later calls publish nothing. `details.prompt`,
   * when given, is the opening the model read (the request and what it was asked on), in place of
   * the command's bare request.
   */
  async announce(details: RunStartDetails = {}): Promise<void> {
    if (this.announced) return;
    this.announced = true;
    const { threadId, runId, prompt } = this.command.data;
    const { systemPrompt, ...rest } = details;
    const carried =
      systemPrompt !== undefined &&
      Buffer.byteLength(systemPrompt) <= MAX_CARRIED_SYSTEM_PROMPT_BYTES
        ? { systemPrompt }
        : {};
    await this.publisher.publish(
      RunStartedV1,
      { threadId, runId, runner: this.runner, prompt, ...rest, ...carried },
      this.options('started'),
    );
  }

  /**
   * Says how the run ended (announcing it first if nothing did). The ending is recorded on the run
   * before it goes out: from then on, a start for this run runs nothing.
   */
  async finish(conclusion: RunFinish): Promise<void> {
    await this.announce();
    const { threadId, runId } = this.command.data;
    const { unpublished } = conclusion;
    const ending: RunEnding = {
      threadId,
      runId,
      outcome: runOutcomeOf(conclusion.exitStatus),
      exitStatus: conclusion.exitStatus,
      summary: conclusion.observation.slice(0, 4000),
      ...carriedSubmission(conclusion.submission),
      ...(unpublished ? { unpublished } : {}),
    };
    await this.runs.recordConclusion(runId, ending);
    await this.publisher.publish(RunFinishedV1, ending, this.options('finished'));
    runsFinished.inc({ outcome: ending.outcome, exit_status: ending.exitStatus });
    // The middleware that end a run on a failed environment (an unreachable sandbox, the circuit
    // breaker) throw nothing: without this line the operator's log would not say why.
    if (ending.exitStatus === 'exit_environment_error') {
      this.log.warn(`run ${runId} ended exit_environment_error: ${ending.summary.slice(0, 500)}`);
    }
  }

  /** The recorder of the run's steps, each published as it completes. */
  steps(): StepRecorder {
    return new StepRecorder(this.publisher, this.command, this.runner);
  }

  /** The recorder of a subagent's steps: the run's steps, under the subagent's actor. */
  subagentSteps(subagentRunId: string): StepRecorder {
    return this.work.subagentSteps(subagentRunId);
  }

  /** A subagent of the run began or ended (`evt.run.subagent`). */
  subagent(event: SubagentEvent): Promise<void> {
    return this.work.subagent(event);
  }

  /** The run's todo list as the agent last wrote it (`evt.run.todos`). */
  todos(todos: readonly TodoItem[], toolCallId: string): Promise<void> {
    return this.work.todos(todos, toolCallId);
  }

  /** The run's commands' output as it comes, for a live view; a piece not sent is logged. */
  liveOutput(): LiveOutput {
    const { threadId, runId } = this.command.data;
    return new LiveOutput(
      async (piece) => {
        await this.publisher.publish(
          RunOutputV1,
          { threadId, runId, ...piece },
          causedBy(this.command, this.runner),
        );
      },
      (error) => this.log.warn(`run ${runId}: live output not sent: ${String(error)}`),
    );
  }

  private options(what: string) {
    return { ...causedBy(this.command, this.runner), id: eventId(this.command.data.runId, what) };
  }
}

/**
 * What a run's subagents and todo list tell the bus, caused by its start command: a subagent's
 * steps (`evt.run.step` under its actor), `evt.run.subagent` and `evt.run.todos`, under ids
 * derived from the run. An attempt of a retry-and-select run has its own (its run id's).
 */
export class RunWorkPublisher implements RunWorkEvents {
  constructor(
    private readonly publisher: MessagePublisher,
    private readonly command: StartRun,
    private readonly runner: string,
  ) {}

  subagentSteps(subagentRunId: string): StepRecorder {
    return new StepRecorder(this.publisher, this.command, this.runner, {
      actor: `subagent:${subagentRunId}`,
      runId: subagentRunId,
    });
  }

  async subagent(event: SubagentEvent): Promise<void> {
    const { threadId, runId } = this.command.data;
    await this.publisher.publish(
      RunSubagentV1,
      { threadId, runId, ...event },
      this.options(`subagent-${event.phase}:${event.subagentRunId}`),
    );
  }

  async todos(todos: readonly TodoItem[], toolCallId: string): Promise<void> {
    const { threadId, runId } = this.command.data;
    await this.publisher.publish(
      RunTodosV1,
      { threadId, runId, toolCallId, todos: [...todos] },
      this.options(`todos:${toolCallId}`),
    );
  }

  private options(what: string) {
    return { ...causedBy(this.command, this.runner), id: eventId(this.command.data.runId, what) };
  }
}

/** The runner's events: per run ({@link RunEvents}), and the ending of a run concluded before. */
@Injectable()
export class RunEventPublisher {
  private readonly log = new Logger('RunExecutor');

  constructor(
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
  ) {}

  forRun(command: StartRun): RunEvents {
    return new RunEvents(this.publisher, this.runs, command, this.runtime.name);
  }

  /**
   * A start for a run that has ended runs nothing; but a runner that concluded the run and died
   * before dispatch recorded its end left the ending on the run: it goes out again (same id).
   * True when there was such an ending.
   */
  async publishEndingAgain(command: StartRun, run: RunRow): Promise<boolean> {
    const ending = endingToPublishAgain(run);
    if (!ending) return false;
    await this.publisher.publish(RunFinishedV1, ending, {
      ...causedBy(command, this.runtime.name),
      id: eventId(run.id, 'finished'),
    });
    return true;
  }

  /**
   * Answers a start for a run that has ended: its recorded ending, not yet seen by dispatch, goes
   * out again ({@link publishEndingAgain}); else nothing but a log line.
   */
  async answerEndedStart(command: StartRun, run: RunRow): Promise<void> {
    if (await this.publishEndingAgain(command, run)) {
      this.log.log(
        `run ${run.id} was concluded before: its ending is published again, not the run`,
      );
      return;
    }
    const how = run.exitStatus ? `${run.status}, ${run.exitStatus}` : run.status;
    this.log.log(`run ${run.id} has ended (${how}): this start is acknowledged, nothing run`);
  }
}
