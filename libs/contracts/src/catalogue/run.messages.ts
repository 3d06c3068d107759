import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import {
  actor,
  exitStatus,
  repositoryRef,
  runId,
  runOutcome,
  threadId,
  threadOptions,
  triggerSource,
} from './common.js';
import { sourceSubject } from './source-subject.js';

const FIXTURE_THREAD = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
const FIXTURE_RUN = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';

/** Dispatch asks the agent runner to start a run for a thread. */
export const StartRunV1 = defineMessage({
  kind: 'cmd',
  name: 'run.start',
  version: 1,
  description: 'Start an agent run on a thread (one run per thread at a time).',
  data: z.object({
    threadId,
    runId,
    /** The trigger envelope that caused this run. */
    triggerId: z.uuid(),
    prompt: z.string(),
    requestedBy: actor,
    repository: repositoryRef.optional(),
    options: threadOptions.default({}),
    /** Where the thread came from: the run answers there (absent: the run only logs replies). */
    source: triggerSource.optional(),
    /** The trigger's source-specific pointer to reply to (PR number, Slack channel + ts, ...). */
    replyTo: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    /**
     * The pull request or issue the run's trigger was made on (its webhook's copy); a run of
     * follow-ups has none and reads its pull request from GitHub by `replyTo`.
     */
    subject: sourceSubject.optional(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    triggerId: '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
    prompt: 'fix the flaky test in parser.spec.ts',
    requestedBy: { externalId: 'octocat' },
  },
});

/** The agent runner took a run and began working. */
export const RunStartedV1 = defineMessage({
  kind: 'evt',
  name: 'run.started',
  version: 1,
  description: 'A run began on a runner.',
  data: z.object({
    threadId,
    runId,
    runner: z.string().min(1),
    /** What the run works on: enough to re-create its starting point for replay. */
    repository: repositoryRef.optional(),
    branch: z.string().min(1).optional(),
    baseCommit: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .optional(),
    /** The resolved model, e.g. `anthropic:claude-sonnet-4-5`. */
    model: z.string().min(1).optional(),
    prompt: z.string().optional(),
    /** The system prompt the model was given (written into the run's `.traj` history). */
    systemPrompt: z.string().optional(),
    /** Set on an attempt of a retry-and-select run: the run it is an attempt of. */
    attemptOf: runId.optional(),
  }),
  fixture: { threadId: FIXTURE_THREAD, runId: FIXTURE_RUN, runner: 'agent-runner-0' },
});

/** One step of a run: the unit the live view, trajectories and replay are made of. */
export const RunStepV1 = defineMessage({
  kind: 'evt',
  name: 'run.step',
  version: 1,
  description: 'One step (thought, action, observation) of a run.',
  data: z.object({
    threadId,
    runId,
    step: z.number().int().nonnegative(),
    thought: z.string().default(''),
    /** A readable summary of the tool calls (for people); the calls themselves are below. */
    action: z.string().default(''),
    observation: z.string().default(''),
    /** The model's tool calls this turn, exactly as made (replay re-executes them). */
    toolCalls: z
      .array(
        z.object({ id: z.string(), name: z.string(), args: z.record(z.string(), z.unknown()) }),
      )
      .default([]),
    /** Each tool call's result, in call order. */
    results: z
      .array(
        z.object({
          toolCallId: z.string(),
          name: z.string(),
          content: z.string(),
          status: z.enum(['success', 'error']),
        }),
      )
      .default([]),
    /** Tokens and dollars of this turn's model call, when the provider reported them. */
    usage: z
      .object({
        inputTokens: z.number().int().nonnegative(),
        outputTokens: z.number().int().nonnegative(),
        costUsd: z.number().nonnegative().optional(),
      })
      .optional(),
    /** Who acted: the agent, or a person who took over the thread. */
    actor: z.string().default('agent'),
    /**
     * Answers the model had to give again before this step's (SWE-agent's requeries): kept in
     * the trajectory, never in the model's history.
     */
    failedAttempts: z
      .array(
        z.object({
          content: z.string(),
          toolCalls: z.array(
            z.object({ name: z.string(), args: z.record(z.string(), z.unknown()) }),
          ),
          /** `format`, `blocked`, `syntax`, `multiline` or `content_policy`. */
          failure: z.string(),
          /** What the model was told. */
          message: z.string(),
        }),
      )
      .default([]),
    /**
     * What the run's SWE-agent tool bundles' state commands wrote after this step's calls
     * (SWE-agent's step `state`, e.g. `{"open_file": …, "working_dir": …}`); absent without bundles.
     */
    state: z.record(z.string(), z.unknown()).optional(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    step: 0,
    action: 'ls',
    observation: 'README.md',
  },
});

/**
 * Output of the agent's command as it runs, for a live view (`caravel attach`, the dashboard).
 * Best effort and capped per run: the step's observation is the record, not these pieces.
 */
export const RunOutputV1 = defineMessage({
  kind: 'evt',
  name: 'run.output',
  version: 1,
  description: "A piece of the output of the agent's running command, for a live view.",
  data: z.object({
    threadId,
    runId,
    /** The piece's place in the run's live output, from 0. */
    piece: z.number().int().nonnegative(),
    text: z.string().max(64 * 1024),
    /** Set on the last piece a run sends once its live output reached its cap. */
    capped: z.boolean().default(false),
  }),
  fixture: { threadId: FIXTURE_THREAD, runId: FIXTURE_RUN, piece: 0, text: 'Running 12 tests\n' },
});

/** At most this many file names travel in {@link runUnpublished}. */
export const MAX_UNPUBLISHED_FILES = 20;

/** At most this many characters of one file name travel in {@link runUnpublished}. */
export const MAX_UNPUBLISHED_FILE_CHARS = 200;

/**
 * Why a run's changes did not reach its pull request, as the runner's publish record took it
 * from the coded error of the failed publish (the sandbox broker's, never the model's words):
 * `reason` is the error's coded reason (`workflow_permission`: GitHub refused the App's push of a
 * change to `.github/workflows/`, which dispatch's failure reply explains; a reason it does not
 * know gets the usual reply), `files` the files the error named (the workflow files), as they
 * are in the repository: names only, never rendered as they come.
 */
export const runUnpublished = z.object({
  reason: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z_]*$/),
  files: z.array(z.string().min(1).max(MAX_UNPUBLISHED_FILE_CHARS)).max(MAX_UNPUBLISHED_FILES),
});

export type RunUnpublished = z.infer<typeof runUnpublished>;

/** A run ended, for whatever reason. An interrupted run is healthy, not a failure. */
export const RunFinishedV1 = defineMessage({
  kind: 'evt',
  name: 'run.finished',
  version: 1,
  description: 'A run ended: completed, failed or interrupted, with its exit status.',
  data: z.object({
    threadId,
    runId,
    outcome: runOutcome,
    exitStatus,
    summary: z.string().default(''),
    /**
     * The run's final patch (its submission, or the diff autosubmitted on an error path); null
     * when there was none; absent when it was too large to carry (the branch still has it).
     */
    submission: z.string().nullable().optional(),
    /** Set on an attempt of a retry-and-select run: the run it is an attempt of. */
    attemptOf: runId.optional(),
    /**
     * On `submitted (exit_unpublished)` after a publish that failed with a coded reason: which,
     * and the files it named. Absent otherwise, and from runners older than the field.
     */
    unpublished: runUnpublished.optional(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    outcome: 'completed',
    exitStatus: 'submitted',
    summary: 'Opened a draft PR.',
  },
});

/** A retry-and-select run picked its winner among its attempts (each a run of its own). */
export const RunAttemptsSelectedV1 = defineMessage({
  kind: 'evt',
  name: 'run.attempts_selected',
  version: 1,
  description: 'How the attempts of a retry-and-select run ended and which one won.',
  data: z.object({
    threadId,
    runId,
    strategy: z.enum(['score', 'chooser']),
    outcome: z.enum(['scored', 'chosen', 'single_candidate', 'all_failed']),
    /** Index of the winning attempt; null when no attempt submitted anything. */
    winnerIndex: z.number().int().nonnegative().nullable(),
    attempts: z.array(
      z.object({
        index: z.number().int().nonnegative(),
        runId,
        exitStatus,
        score: z.number().nullable(),
        costUsd: z.number().nonnegative(),
        apiCalls: z.number().int().nonnegative(),
        submissionBytes: z.number().int().nonnegative(),
      }),
    ),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    strategy: 'score',
    outcome: 'scored',
    winnerIndex: 0,
    attempts: [
      {
        index: 0,
        runId: '1c9e2f7a-3b4d-4e5f-8a6b-7c8d9e0f1a2b',
        exitStatus: 'submitted',
        score: 8,
        costUsd: 0.12,
        apiCalls: 5,
        submissionBytes: 240,
      },
    ],
  },
});
