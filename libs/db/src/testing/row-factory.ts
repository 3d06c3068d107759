import { randomUUID } from 'node:crypto';
import type { CiWatchRow } from '../repositories/ci-watch.repository.js';
import type { EvalProposalRow } from '../repositories/eval-proposal.repository.js';
import type { EvalRunRow } from '../repositories/eval-run.repository.js';
import type { ReviewLedgerRow } from '../repositories/finding.repository.js';
import type { ReviewStyleRow } from '../repositories/review-style.repository.js';
import type { RunEventRow } from '../repositories/run-event.repository.js';
import type { RunQueueRow } from '../repositories/run-queue.repository.js';
import type { RunRow } from '../repositories/run.repository.js';
import type { ThreadMessageRow } from '../repositories/thread-message.repository.js';
import type { ThreadRow } from '../repositories/thread.repository.js';
import type { UserProfileRow } from '../repositories/user-profile.repository.js';

/** The instant every factory row was created at unless the test says otherwise. */
export const FACTORY_TIME = new Date('2026-01-01T00:00:00.000Z');

/**
 * Rows as the repositories return them, for specs that hand them to code under test: every
 * column has a plain default (random ids, {@link FACTORY_TIME}, nothing started or finished),
 * and a test names only the columns its behaviour depends on.
 *
 * ```ts
 * const running = factory.run({ threadId: thread.id, status: 'running', startedAt: NOW });
 * ```
 */
/** The stream position of the next {@link factory.runEvent}: each one after the last. */
let eventSequence = 0;

export const factory = {
  /**
   * The indexed event of a message (its type and stream from `definition`) carrying `data`, its
   * thread and run read from the data; each one after the last in its stream and in time.
   */
  runEvent(
    definition: { type: string; stream: { name: string } },
    data: { threadId: string; runId?: string } & Record<string, unknown>,
    overrides: Partial<RunEventRow> = {},
  ): RunEventRow {
    eventSequence += 1;
    return {
      id: randomUUID(),
      threadId: data.threadId,
      runId: data.runId ?? null,
      type: definition.type,
      stream: definition.stream.name,
      sequence: eventSequence,
      position: eventSequence,
      occurredAt: new Date(FACTORY_TIME.getTime() + eventSequence * 1000),
      data,
      ...overrides,
    };
  },

  /** A thread with no repository, no reply target and no active run (`status: 'idle'`). */
  thread(overrides: Partial<ThreadRow> = {}): ThreadRow {
    return {
      id: randomUUID(),
      source: 'synthetic',
      title: '',
      repositoryOwner: null,
      repositoryName: null,
      repository: null,
      options: {},
      replyTo: {},
      lastHumanAt: null,
      headSha: null,
      status: 'idle',
      activeRunId: null,
      createdAt: FACTORY_TIME,
      updatedAt: FACTORY_TIME,
      ...overrides,
    };
  },

  /** A run created and not started yet (`queued`): no runner, nothing concluded or finished. */
  run(overrides: Partial<RunRow> = {}): RunRow {
    return {
      id: randomUUID(),
      threadId: randomUUID(),
      triggerId: randomUUID(),
      status: 'queued',
      exitStatus: null,
      summary: '',
      runner: null,
      createdAt: FACTORY_TIME,
      startedAt: null,
      finishedAt: null,
      heartbeatAt: null,
      concludedAt: null,
      conclusion: null,
      ...overrides,
    };
  },

  /** A trusted follow-up message, to inject, that no run has taken yet. */
  threadMessage(overrides: Partial<ThreadMessageRow> = {}): ThreadMessageRow {
    return {
      id: randomUUID(),
      threadId: randomUUID(),
      author: 'synthetic:octocat',
      text: '',
      trusted: true,
      delivery: 'inject',
      kind: 'message',
      receivedAt: FACTORY_TIME,
      consumedByRun: null,
      consumedAt: null,
      ...overrides,
    };
  },

  /** A run waiting in the admission queue (not admitted, its start not published). */
  queuedRun(overrides: Partial<RunQueueRow> = {}): RunQueueRow {
    return {
      runId: randomUUID(),
      threadId: randomUUID(),
      repositoryKey: 'acme/api',
      userKey: 'synthetic:octocat',
      command: {},
      enqueuedAt: FACTORY_TIME,
      admittedAt: null,
      startPublishedAt: null,
      ...overrides,
    };
  },

  /** A profile that sets nothing of its own: the team's defaults apply. */
  userProfile(overrides: Partial<UserProfileRow> = {}): UserProfileRow {
    return {
      identity: 'synthetic:octocat',
      model: null,
      reasoningEffort: null,
      defaultRepository: null,
      draftPullRequests: true,
      alwaysCreatePullRequests: null,
      fallbackModel: null,
      autofixCi: null,
      subagentModel: null,
      updatedAt: FACTORY_TIME,
      ...overrides,
    };
  },

  /** The review ledger of `acme/widgets#7`, opened and never reviewed: no head, no verdict. */
  reviewLedger(overrides: Partial<ReviewLedgerRow> = {}): ReviewLedgerRow {
    return {
      threadId: randomUUID(),
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      headSha: null,
      lastReviewedSha: null,
      mergeBaseSha: null,
      checkRunId: null,
      skipReason: null,
      skippedSha: null,
      skippedAt: null,
      verdictEvent: null,
      verdictReason: null,
      verdictReviewId: null,
      verdictSha: null,
      verdictAt: null,
      createdAt: FACTORY_TIME,
      updatedAt: FACTORY_TIME,
      ...overrides,
    };
  },

  /** An active watch of `acme/widgets#7` the agent opened, that has seen nothing yet. */
  ciWatch(overrides: Partial<CiWatchRow> = {}): CiWatchRow {
    return {
      id: randomUUID(),
      pullRequestKey: 'acme/widgets#7',
      repositoryOwner: 'acme',
      repositoryName: 'widgets',
      pullRequest: 7,
      pullRequestUrl: 'https://github.com/acme/widgets/pull/7',
      threadId: randomUUID(),
      asked: false,
      active: true,
      stoppedReason: null,
      autofix: null,
      headSha: null,
      agentHeads: [],
      checks: [],
      mergeable: null,
      fixRuns: 0,
      limitAnnounced: false,
      handledKeys: [],
      rerunsAtHead: 0,
      greenFingerprint: null,
      greenSince: null,
      announcedHead: null,
      retryAt: null,
      version: 0,
      createdAt: FACTORY_TIME,
      updatedAt: FACTORY_TIME,
      ...overrides,
    };
  },

  /** Version 1 of `acme/widgets`'s review style, learned from its history by a scripted model. */
  reviewStyle(overrides: Partial<ReviewStyleRow> = {}): ReviewStyleRow {
    return {
      id: randomUUID(),
      repository: 'acme/widgets',
      version: 1,
      mode: 'bootstrap',
      threadId: randomUUID(),
      prompt: 'Name things for what they mean.',
      summary: 'Names.',
      wordCount: 5,
      model: 'scripted:style.json',
      pullRequests: [],
      commentIds: [],
      reviewers: [],
      counts: { pullRequests: 0, comments: 0, reviewers: 0 },
      editedBy: null,
      proposalId: null,
      createdAt: FACTORY_TIME,
      ...overrides,
    };
  },

  /** A Harbor eval run of suite `tasks` that is still recording its attempts. */
  evalRun(overrides: Partial<EvalRunRow> = {}): EvalRunRow {
    return {
      id: randomUUID(),
      suite: 'tasks',
      config: 'current',
      model: 'scripted:fix.json',
      settings: {},
      attemptsPerTask: 1,
      status: 'running',
      outDir: null,
      createdAt: FACTORY_TIME,
      finishedAt: null,
      kind: 'harbor',
      scheduleId: null,
      scheduleSlot: null,
      ...overrides,
    };
  },

  /** A pending proposal to run `candidate` with another model on suite `tasks`. */
  evalProposal(overrides: Partial<EvalProposalRow> = {}): EvalProposalRow {
    return {
      id: randomUUID(),
      suite: 'tasks',
      config: 'candidate',
      model: 'scripted:fix.json',
      settings: {},
      note: null,
      proposedBy: 'octocat',
      kind: 'agent-config',
      repository: null,
      stylePrompt: null,
      styleSummary: null,
      baseVersion: null,
      styleVersion: null,
      status: 'pending',
      baselineRunId: null,
      candidateRunId: null,
      maxDrop: null,
      alpha: null,
      delta: null,
      pValue: null,
      reason: null,
      numbers: null,
      createdAt: FACTORY_TIME,
      decidedAt: null,
      ...overrides,
    };
  },
};
