import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  TriggerReceivedV1,
  repositoryRef,
  uuidV5,
  type CiCheck,
} from '@caravel/contracts';
import {
  CiWatchRepository,
  EnabledRepositoryRepository,
  ThreadPlanRepository,
  ThreadRepository,
  UserProfileRepository,
  type CiWatchRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { z } from 'zod';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { RunNotifierService } from '../replies/run-notifier.service.js';
import { ciFixPrompt } from './ci-fix-prompt.js';
import {
  actsOnPullRequest,
  evaluateCiWatch,
  weighsBaseFailures,
  type CiWatchContext,
  type CiWatchDecision,
  type CiWatchLimits,
} from './ci-watch-policy.js';
import { CI_WATCH_ACTOR, greenText, limitText, triageText } from './ci-watch-notices.js';
import {
  checksWith,
  isAgentHead,
  isRerunAtHead,
  policyStateOf,
  savedStateOf,
} from './ci-watch-state.js';
import {
  PULL_REQUEST_STATE,
  type PullRequestState,
  type PullRequestStatePort,
} from './pull-request-state.port.js';

/** What an evaluation learnt since the last one (a check delivery, the sweep's read of the PR). */
export interface CiObservation {
  headSha?: string;
  check?: CiCheck;
  /** GitHub's word on a merge conflict (false: conflict). */
  mergeable?: boolean | null;
  state?: 'open' | 'closed' | 'merged';
}

/**
 * True when the pull request is no longer what a delivery at `headSha` was about: closed or merged
 * (a check finishing after the merge), or pushed to another head (a report handled before the
 * push's delivery). A host that names no head (a stand-in's pull request) has not moved.
 */
function leftBehind(current: PullRequestState, headSha: string): boolean {
  if (current.state !== 'open') return true;
  return current.headSha !== '' && current.headSha.toLowerCase() !== headSha.toLowerCase();
}

/** Evaluations that lose the compare-and-set this often in a row give up (the bus redelivers). */
const ATTEMPTS = 3;

/** The outcome as the log names it: one line per evaluation. */
function outcomeOf(decision: CiWatchDecision): string {
  switch (decision.action) {
    case 'skip':
      return `skip: ${decision.reason}`;
    case 'finish_watch':
      return `finish: ${decision.reason}`;
    case 'fix':
    case 'enqueue_fix':
      return `${decision.action}: ${decision.failing.map((c) => c.name).join(', ') || 'merge conflict'}`;
    case 'announce_green':
    case 'needs_owner_triage':
      return decision.action;
    case 'announce_limit':
      return `announce_limit after ${decision.fixRuns} fix runs`;
  }
}

/**
 * Evaluates a watched pull request (`ci-watch-policy.ts`) and does what the decision says: a fix
 * run on the agent thread (a synthetic trigger: a busy thread takes it as a follow-up, never an
 * interruption), one message in the thread's channel when green held for the settle window or at
 * the loop cap, and the end of the watch when the PR closed, a person pushed, or a check needs its
 * owner. Every effect is idempotent (ids derive from the watch, head and rerun count), so it runs
 * before the state is written: an evaluation that loses the race reads again and decides again.
 */
@Injectable()
export class CiWatchService {
  private readonly log = new Logger('CiWatch');
  private readonly limits: CiWatchLimits;

  constructor(
    @Inject(CiWatchRepository) private readonly watches: CiWatchRepository,
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(EnabledRepositoryRepository) private readonly repositories: EnabledRepositoryRepository,
    @Inject(ThreadPlanRepository) private readonly owners: ThreadPlanRepository,
    @Inject(UserProfileRepository) private readonly profiles: UserProfileRepository,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(RunNotifierService) private readonly notifier: RunNotifierService,
    @Inject(PULL_REQUEST_STATE) private readonly pulls: PullRequestStatePort,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DISPATCH_CONFIG) config: DispatchConfig,
  ) {
    const { settleMs, maxFixRunsPerPullRequest, maxFlakyRerunsPerHead } = config.ciWatch;
    this.limits = { settleMs, maxFixRunsPerPullRequest, maxFlakyRerunsPerHead };
  }

  /** One evaluation of a watch; null when it is not active or has seen no head yet. */
  async evaluate(id: string, seen: CiObservation = {}): Promise<CiWatchDecision | null> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const row = await this.watches.get(id);
      if (!row?.active) return null;
      // A read that names no head (a stand-in host's pull request) keeps the head last seen.
      const headSha = seen.headSha || row.headSha;
      if (!headSha) return null;
      const checks = checksWith(row, headSha, seen.check);
      const sameHead = row.headSha === headSha;
      const mergeable =
        seen.mergeable !== undefined ? seen.mergeable : sameHead ? row.mergeable : null;
      const rerunStarted = isRerunAtHead(row, headSha, seen.check);
      const pr = { headSha, mergeable, state: seen.state, rerunStarted };
      const context = await this.contextOf(row, pr, checks);
      const { decision, state } = evaluateCiWatch(context);
      if (seen.state === undefined && actsOnPullRequest(decision)) {
        const current = await this.currentState(row);
        if (current && leftBehind(current, headSha)) {
          this.log.log(
            `${row.pullRequestKey} at ${headSha.slice(0, 12)}: ${outcomeOf(decision)} not done, the pull request is ${current.state} at ${current.headSha.slice(0, 12)}`,
          );
          return this.evaluate(id, current);
        }
      }
      await this.act(row, decision);
      const saved = savedStateOf(state, { checks, mergeable }, decision);
      if (await this.watches.saveState(id, row.version, saved, this.clock.now())) {
        this.log.log(`${row.pullRequestKey} at ${headSha.slice(0, 12)}: ${outcomeOf(decision)}`);
        await this.stopWhenDone(row, decision);
        return decision;
      }
    }
    throw new AppError('CONFLICT', `CI watch ${id}: ${ATTEMPTS} evaluations raced; try again`, {
      retryable: true,
    });
  }

  /**
   * The pull request as its code host has it now; null when it cannot be read here (no App) or
   * the read failed (logged: the evaluation then goes on as the delivery says, as before a read).
   */
  private async currentState(row: CiWatchRow): Promise<PullRequestState | null> {
    const repository = { owner: row.repositoryOwner, name: row.repositoryName };
    try {
      return await this.pulls.read(repository, row.pullRequest);
    } catch (error) {
      this.log.warn(`${row.pullRequestKey}: not read before acting (${String(error)})`);
      return null;
    }
  }

  private async contextOf(
    row: CiWatchRow,
    pr: {
      headSha: string;
      mergeable: boolean | null;
      state: CiObservation['state'];
      rerunStarted: boolean;
    },
    checks: CiCheck[],
  ): Promise<CiWatchContext> {
    const thread = await this.threads.get(row.threadId);
    const context: Omit<CiWatchContext, 'failingOnBase'> = {
      pullRequest: { state: pr.state ?? 'open', headSha: pr.headSha, mergeable: pr.mergeable },
      repositoryEnabled: row.asked || (await this.autofixEnabled(row)),
      openedByAgentThread: thread !== null,
      pullRequestToggle: row.autofix === null ? null : row.autofix ? 'on' : 'off',
      // `autofix on` on the PR and a person's ask for the watch outrank the profile: unread then.
      profileAutoFix: row.asked || row.autofix === true || (await this.requesterAutoFix(row)),
      // A person who asked for the watch asked for fixes on their own pushes too.
      headCommitByAgent: row.asked || isAgentHead(row.agentHeads, pr.headSha),
      checks,
      rerunStarted: pr.rerunStarted,
      threadBusy: thread?.status === 'running',
      state: policyStateOf(row),
      now: this.clock.now().getTime(),
      limits: this.limits,
    };
    const failingOnBase = weighsBaseFailures(context)
      ? await this.failingOnBase(row)
      : new Set<string>();
    return { ...context, failingOnBase };
  }

  /**
   * The checks failing at the pull request's base commit. Unread (no App, a failed call), none
   * are: a failure the PR did not cause may then get a fix run, but one it did is never dropped.
   */
  private async failingOnBase(row: CiWatchRow): Promise<ReadonlySet<string>> {
    const repository = { owner: row.repositoryOwner, name: row.repositoryName };
    try {
      return (await this.pulls.failingOnBase(repository, row.pullRequest)) ?? new Set();
    } catch (error) {
      this.log.warn(`${row.pullRequestKey}: the base branch's checks not read (${String(error)})`);
      return new Set();
    }
  }

  /**
   * The requester's "auto-fix CI": the profile of the person the thread belongs to (its owner,
   * whose request started it). No owner, no profile or a flag never set: the team's default, on.
   */
  private async requesterAutoFix(row: CiWatchRow): Promise<boolean> {
    const owner = await this.owners.ownerOf(row.threadId);
    const profile = owner ? await this.profiles.get(owner) : null;
    return profile?.autofixCi ?? true;
  }

  private async autofixEnabled(row: CiWatchRow): Promise<boolean> {
    const name = `${row.repositoryOwner}/${row.repositoryName}`.toLowerCase();
    const enabled = await this.repositories.list();
    return enabled.some((r) => r.repository.toLowerCase() === name && r.ciAutofix);
  }

  private async act(row: CiWatchRow, decision: CiWatchDecision): Promise<void> {
    const url = row.pullRequestUrl;
    switch (decision.action) {
      case 'fix':
      case 'enqueue_fix':
        return this.requestFix(row, decision);
      case 'announce_green':
        return this.announce(row, `green:${decision.headSha}`, greenText(url, decision.headSha));
      case 'announce_limit':
        return this.announce(row, 'limit', limitText(url, decision.fixRuns));
      case 'needs_owner_triage':
        return this.announce(row, `triage:${decision.headSha}`, triageText(url, decision.headSha));
      case 'skip':
      case 'finish_watch':
        return;
    }
  }

  /** The fix run: a synthetic trigger on the agent thread, its id stable per head and rerun. */
  private async requestFix(
    row: CiWatchRow,
    decision: Extract<CiWatchDecision, { action: 'fix' | 'enqueue_fix' }>,
  ): Promise<void> {
    const thread = await this.threads.get(row.threadId);
    const repository = repositoryRef.safeParse(thread?.repository);
    const text = ciFixPrompt({ pullRequestUrl: row.pullRequestUrl, ...decision });
    await this.publisher.publish(
      TriggerReceivedV1,
      {
        threadId: row.threadId,
        source: 'synthetic',
        deliveryId: `ci-fix:${row.id}:${decision.key}`,
        author: CI_WATCH_ACTOR,
        text,
        trusted: true,
        ...(repository.success ? { repository: repository.data } : {}),
      } satisfies z.input<typeof TriggerReceivedV1.dataSchema>,
      { source: 'dispatch', id: uuidV5(`ci-fix:${row.id}:${decision.key}`, CARAVEL_NAMESPACE) },
    );
  }

  /** One message in the agent thread's channel per watch and `what` (the channel dedupes). */
  private async announce(row: CiWatchRow, what: string, text: string): Promise<void> {
    const key = uuidV5(`ci-watch:${row.id}:${what}`, CARAVEL_NAMESPACE);
    const outcome = await this.notifier.announce(row.threadId, key, text);
    if (outcome !== 'posted') {
      this.log.warn(`${row.pullRequestKey}: ${what} not posted (${outcome ?? 'no thread'})`);
    }
  }

  /** A closed PR, a person's push or a check for its owner ends the watch. */
  private async stopWhenDone(row: CiWatchRow, decision: CiWatchDecision): Promise<void> {
    const reason =
      decision.action === 'finish_watch'
        ? decision.reason
        : decision.action === 'needs_owner_triage'
          ? 'needs_owner_triage'
          : decision.action === 'skip' && decision.reason === 'human_commit_at_head'
            ? decision.reason
            : null;
    if (reason && (await this.watches.stop(row.id, reason, this.clock.now()))) {
      this.log.log(`${row.pullRequestKey}: watch stopped (${reason})`);
    }
  }
}
