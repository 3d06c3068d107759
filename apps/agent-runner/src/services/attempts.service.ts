import {
  reviewChooser,
  reviewScorer,
  runRetryLoop,
  type RunConclusion,
  type Selection,
  type SelectionStrategy,
} from '@caravel/agent';
import {
  CARAVEL_NAMESPACE,
  RunAttemptsSelectedV1,
  causedBy,
  threadBranch,
  uuidV5,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { RUNTIME, type PlatformRuntime } from '@caravel/platform';
import type { ScmPort } from '@caravel/tools';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AgentFactoryService } from '../agent/agent-factory.service.js';
import type { InstructionFiles } from '../agent/agents-file-finder.js';
import { RunBudgets, type RunBudgetLimit } from '../agent/budget-of-run.js';
import { sandboxForRun } from '../agent/exit-reasons.js';
import { RunModels } from '../agent/run-models.js';
import { requesterOf } from '../agent/run-people.js';
import { withSourceContext } from '../agent/source-context.js';
import { applyPatch } from '../sandbox/apply-patch.js';
import { RunWorkspaces } from '../sandbox/run-workspaces.js';
import { ThreadSandboxService, type ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';
import {
  attemptIds,
  runAttempt,
  type AttemptOutcome,
  type AttemptRunContext,
} from './attempt-runner.js';
import { attemptsBudgetStop, budgetLimitName } from './attempts-budget.js';

/** What a retry-and-select run needs from the run executor. */
export interface AttemptsRunContext {
  heartbeat: () => Promise<void>;
  signal: AbortSignal;
  /** Posts to the thread's source channel. */
  reply: (text: string) => Promise<unknown>;
  /** How the thread publishes (a GitHub draft PR, or a pushed branch). */
  scmFor: (workspace: ThreadWorkspace) => ScmPort;
  /** Where an attempt in `workspace` reads the repository's AGENTS.md files (the run's source). */
  instructionsFor: (workspace: ThreadWorkspace) => InstructionFiles;
  /** Announces the run (once) with its starting point and the prompt its attempts open with. */
  announce: (details: {
    branch: string;
    baseCommit: string;
    model: string;
    prompt: string;
  }) => Promise<void>;
}

/**
 * Retry-and-select (SWE-agent's RetryAgent): N attempts of the same task, each in a fresh sandbox
 * that starts at the thread's HEAD, with its own conversation and trajectory, within one budget
 * (the run's: the tightest of the team's, repository's and requester's limits, summed over the
 * attempts; at it the run stops trying and says so, naming the limit); a
 * reviewer scores each attempt (or a chooser picks one); every attempt is recorded
 * (`evt.run.attempts_selected`), and only the winner's change reaches the thread: its patch is
 * applied in the thread's sandbox, committed and published there, and its replies are posted. The
 * losers' sandboxes are deleted once the selection is made, the winner's once its patch is applied.
 */
@Injectable()
export class AttemptsService {
  private readonly log = new Logger('Attempts');

  constructor(
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(ThreadSandboxService) private readonly sandboxes: ThreadSandboxService,
    @Inject(RunWorkspaces) private readonly workspaces: RunWorkspaces,
    @Inject(AgentFactoryService) private readonly factory: AgentFactoryService,
    @Inject(RunModels) private readonly models: RunModels,
    @Inject(AGENT_RUNNER_CONFIG) private readonly config: AgentRunnerConfig,
    @Optional() @Inject(RunBudgets) private readonly budgets?: RunBudgets,
  ) {}

  async run(
    command: EnvelopeOf<typeof StartRunV1>,
    context: AttemptsRunContext,
  ): Promise<RunConclusion> {
    const { threadId, repository, options } = command.data;
    // The thread's own sandbox, where the winner is published: started over at the base when
    // the thread branch's pull request was merged, as a single run's is.
    const ownBranch = { branch: threadBranch(threadId), repository };
    const thread = await sandboxForRun(
      this.workspaces.acquire(command.data, ownBranch, () => undefined),
    );
    const attempts = options.attempts ?? 1;
    // Each attempt is told where the thread's sandbox starts when that needs saying (it started
    // over after a merge, …), as a single run is; the reviewer still judges the request itself.
    const prompt = withSourceContext(command.data.prompt, null, thread.startNote);
    const attempted = { ...command, data: { ...command.data, prompt } };
    await context.announce({
      branch: thread.branch,
      baseCommit: thread.baseCommit,
      model: `${options.selection ?? 'score'} of ${attempts} attempts`,
      prompt,
    });
    const budget = await this.budgetOf(command);
    const outcomes = new Map<number, AttemptOutcome>();
    /** Attempts whose sandboxes still exist. */
    const live = new Set<number>();
    try {
      const selection = await runRetryLoop<string>(
        { maxAttempts: attempts, budgetUsd: budget.usd, minBudgetForNewAttempt: 0 },
        {
          runAttempt: async (index, budgetUsd) => {
            live.add(index);
            const outcome = await runAttempt(
              this.attemptContext(attempted, context),
              index,
              options.attemptModels?.[index % options.attemptModels.length],
              budgetUsd,
            );
            outcomes.set(index, outcome);
            return outcome;
          },
          strategy: await this.strategy(command),
        },
      );
      await this.record(command, selection, outcomes);
      // The losers' work is in their trajectories; only the winner's patch is still to apply.
      await this.discard(command, live, (index) => index !== selection.winnerIndex);
      const stopped = attemptsBudgetStop(budget.limit, budget.name, selection, attempts);
      if (stopped) await context.reply(stopped);
      const conclusion = await this.conclude(thread, selection, outcomes, context);
      return stopped
        ? { ...conclusion, observation: `${conclusion.observation}. ${stopped}` }
        : conclusion;
    } finally {
      await this.discard(command, live, () => true);
    }
  }

  /**
   * The run's budget for all its attempts together: the tightest limit that applies, as for a
   * single run (a grant's when it continues a paused run); `RUN_BUDGET_USD` without budgets.
   */
  private async budgetOf(
    command: EnvelopeOf<typeof StartRunV1>,
  ): Promise<{ usd: number; limit: RunBudgetLimit; name: string }> {
    const { threadId, runId, repository } = command.data;
    const requestedBy = requesterOf(command.data);
    const limit: RunBudgetLimit = this.budgets
      ? await this.budgets.limitOf({ threadId, runId, requestedBy, workspace: { repository } })
      : { usd: this.config.run.budgetUsd, from: 'environment' };
    return { usd: limit.usd, limit, name: budgetLimitName(limit, { repository, requestedBy }) };
  }

  /** Applies the winner's change (if any) to the thread and says how the selection went. */
  private async conclude(
    thread: ThreadWorkspace,
    selection: Selection<string>,
    outcomes: ReadonlyMap<number, AttemptOutcome>,
    context: AttemptsRunContext,
  ): Promise<RunConclusion> {
    const exitStatus = selection.exitStatus as RunConclusion['exitStatus'];
    const winner = selection.winnerIndex === null ? undefined : outcomes.get(selection.winnerIndex);
    if (!winner?.submission) {
      return {
        exitStatus,
        submission: null,
        observation: `No attempt of ${selection.attempts.length} submitted a change`,
      };
    }
    await this.adopt(thread, winner, context);
    return {
      exitStatus,
      submission: winner.submission,
      observation: `Attempt ${selection.winnerIndex} of ${selection.attempts.length} selected (${selection.outcome})`,
    };
  }

  private attemptContext(
    command: EnvelopeOf<typeof StartRunV1>,
    context: AttemptsRunContext,
  ): AttemptRunContext {
    return {
      command,
      runner: this.runtime.name,
      fileRoot: this.config.models.fileRoot,
      heartbeat: context.heartbeat,
      signal: context.signal,
      publisher: this.publisher,
      sandboxes: this.sandboxes,
      factory: this.factory,
      instructionsFor: context.instructionsFor,
    };
  }

  /**
   * Deletes the sandboxes of the live attempts `which` picks (a failure is logged: the broker's
   * idle sweep is the safety net) and forgets them.
   */
  private async discard(
    command: EnvelopeOf<typeof StartRunV1>,
    live: Set<number>,
    which: (index: number) => boolean,
  ): Promise<void> {
    for (const index of [...live].filter(which)) {
      live.delete(index);
      const { threadId } = attemptIds(command.data.runId, index);
      await this.sandboxes.discard(threadId).catch((error: unknown) => {
        this.log.warn(`attempt ${index}: its sandbox could not be discarded: ${String(error)}`);
      });
    }
  }

  private async strategy(
    command: EnvelopeOf<typeof StartRunV1>,
  ): Promise<SelectionStrategy<string>> {
    const { options, prompt } = command.data;
    const model = await this.models.reviewModel(options);
    if (options.selection === 'chooser') {
      return { kind: 'chooser', choose: reviewChooser<string>({ model, task: prompt }) };
    }
    return {
      kind: 'score',
      score: reviewScorer<string>({
        model,
        task: prompt,
        samples: this.config.run.reviewSamples,
      }),
    };
  }

  /** Applies the winner's patch to the thread's sandbox, then publishes it as the winner asked. */
  private async adopt(
    thread: ThreadWorkspace,
    winner: AttemptOutcome,
    context: AttemptsRunContext,
  ): Promise<void> {
    const applied = await applyPatch(thread.sandbox, winner.submission ?? '');
    if (!applied.applied) {
      throw new AppError(
        'CONFLICT',
        `the selected attempt's patch does not apply to the thread: ${applied.output}`,
      );
    }
    const { commitMessage, pullRequest } = winner.publication;
    if (commitMessage === null) return; // the winner never asked to publish: its change waits in the sandbox
    const scm = context.scmFor(thread);
    await scm.commitAndPush({ message: commitMessage });
    if (pullRequest) await scm.openPullRequest({ ...pullRequest, branch: thread.branch });
    for (const reply of winner.replies) await context.reply(reply);
  }

  private async record(
    command: EnvelopeOf<typeof StartRunV1>,
    selection: Selection<string>,
    outcomes: ReadonlyMap<number, AttemptOutcome>,
  ): Promise<void> {
    const { threadId, runId, options } = command.data;
    this.log.log(
      `run ${runId}: ${selection.attempts.length} attempts, ${selection.outcome}, winner ${selection.winnerIndex ?? 'none'}`,
    );
    await this.publisher.publish(
      RunAttemptsSelectedV1,
      {
        threadId,
        runId,
        strategy: options.selection ?? 'score',
        outcome: selection.outcome,
        winnerIndex: selection.winnerIndex,
        attempts: selection.attempts.map((attempt) => ({
          index: attempt.index,
          runId: outcomes.get(attempt.index)?.trajectory ?? attemptIds(runId, attempt.index).runId,
          exitStatus: attempt.exitStatus,
          score: attempt.score,
          costUsd: attempt.stats.instanceCost,
          apiCalls: attempt.stats.apiCalls,
          submissionBytes: Buffer.byteLength(attempt.submission ?? ''),
        })),
      },
      {
        ...causedBy(command, this.runtime.name),
        id: uuidV5(`attempts-selected:${runId}`, CARAVEL_NAMESPACE),
      },
    );
  }
}
