import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import { CARAVEL_NAMESPACE, uuidV5 } from '../ids.js';
import { actor, runId, threadId } from './common.js';

const FIXTURE_THREAD = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
const FIXTURE_RUN = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';
const FIXTURE_REPLAY = '3c9e1f7a-2b4d-5e68-8a1c-4d5e6f7a8b9c';

/** Names one replay: the `n`th replay asked of a run (so one asked twice at once is one replay). */
export const replayId = z.uuid();

/** The id of the `n`th (from 1) replay of a run: asking again while it is pending gives it back. */
export function replayIdFor(runId: string, n: number): string {
  return uuidV5(`replay:${runId}:${n}`, CARAVEL_NAMESPACE);
}

/** How one replayed call compares with its recording. */
export const replayStepOutcome = z.enum(['matched', 'differed', 'failed', 'unrecorded']);

/** How the replayed patch compares with the recorded submission (`comparePatches`). */
export const patchComparison = z.object({
  /** SWE-agent's verdict: equal once CRLF → LF and surrounding whitespace is stripped. */
  identical: z.boolean(),
  byteIdentical: z.boolean(),
  difference: z.enum(['none', 'whitespace', 'index', 'content']),
  /** Empty when the bytes are equal; else the kind of difference and a diff of the patches. */
  summary: z.string(),
});

const replayScoped = { threadId, runId, replayId };

/**
 * A person asks to replay a finished run (the dashboard's replay action): the agent runner takes
 * a fresh broker sandbox at the run's recorded base, re-executes its recorded tool calls, and
 * compares each observation and the final patch with the recording (`evt.replay.*`).
 */
export const ReplayRunV1 = defineMessage({
  kind: 'cmd',
  name: 'replay.run',
  version: 1,
  description: "Replay a finished run's recorded tool calls in a fresh sandbox and compare.",
  data: z.object({ ...replayScoped, requestedBy: actor }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    replayId: FIXTURE_REPLAY,
    requestedBy: { externalId: 'octocat' },
  },
});

/** The runner began a replay: its sandbox is ready at the recorded base. */
export const ReplayStartedV1 = defineMessage({
  kind: 'evt',
  name: 'replay.started',
  version: 1,
  description: 'A replay began in its own sandbox at the recorded base commit.',
  data: z.object({
    ...replayScoped,
    runner: z.string().min(1),
    baseCommit: z.string().min(1),
    branch: z.string().min(1),
    /** How many recorded calls it will replay. */
    calls: z.number().int().nonnegative(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    replayId: FIXTURE_REPLAY,
    runner: 'agent-runner-0',
    baseCommit: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    branch: 'caravel/5f2b7c1e',
    calls: 3,
  },
});

/** One replayed call: what it answered now, against what it answered in the run. */
export const ReplayStepV1 = defineMessage({
  kind: 'evt',
  name: 'replay.step',
  version: 1,
  description: 'One replayed tool call and how its observation compares with the recording.',
  data: z.object({
    ...replayScoped,
    /** Its place among the replayed calls, from 0. */
    index: z.number().int().nonnegative(),
    /** The recorded step and the call's place in it. */
    step: z.number().int().nonnegative(),
    call: z.number().int().nonnegative(),
    name: z.string().min(1),
    outcome: replayStepOutcome,
    /** The observation now (capped). */
    observation: z.string(),
    /** Where the observation first parts from the recorded one; absent when they match. */
    difference: z.string().optional(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    replayId: FIXTURE_REPLAY,
    index: 0,
    step: 0,
    call: 0,
    name: 'execute',
    outcome: 'matched',
    observation: 'README.md',
  },
});

/** A replay ended: the patch comparison, or why it could not run. */
export const ReplayFinishedV1 = defineMessage({
  kind: 'evt',
  name: 'replay.finished',
  version: 1,
  description: "A replay's verdict: per-step tallies and the patch comparison (or its failure).",
  data: z.object({
    ...replayScoped,
    /** `failed`: the replay could not run to its end (`error` says why). */
    status: z.enum(['completed', 'failed']),
    error: z.string().optional(),
    matched: z.number().int().nonnegative(),
    differed: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    comparison: patchComparison.nullable(),
    recordedPatch: z.string().nullable(),
    replayedPatch: z.string().nullable(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    replayId: FIXTURE_REPLAY,
    status: 'completed',
    matched: 3,
    differed: 0,
    failed: 0,
    comparison: { identical: true, byteIdentical: true, difference: 'none', summary: '' },
    recordedPatch: null,
    replayedPatch: null,
  },
});
