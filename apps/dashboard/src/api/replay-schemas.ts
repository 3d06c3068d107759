import { z } from 'zod';

/** A thread's replays (`/api/threads/:id/replays`). Only zod here: the web app reads these types. */
const when = z.string().describe('ISO 8601 time');

export const replayStepResponse = z.object({
  index: z.number().int().describe('its place among the replayed calls, from 0'),
  step: z.number().int().describe('the recorded step'),
  call: z.number().int().describe("the call's place in its step"),
  name: z.string().describe('the tool'),
  outcome: z.enum(['matched', 'differed', 'failed', 'unrecorded']),
  observation: z.string().describe('what the call answered in the replay (capped)'),
  difference: z
    .string()
    .nullable()
    .describe('where the observation first parts from the recorded one'),
});

export const replaySummaryResponse = z.object({
  id: z.uuid(),
  threadId: z.uuid(),
  runId: z.uuid().describe('the replayed run'),
  status: z.enum(['requested', 'running', 'completed', 'failed']),
  requestedBy: z.string().nullable(),
  requestedAt: when.nullable(),
  startedAt: when.nullable(),
  finishedAt: when.nullable(),
  baseCommit: z.string().nullable().describe('the recorded base the replay started at'),
  calls: z.number().int().nullable().describe('recorded calls to replay'),
  counts: z.object({
    replayed: z.number().int(),
    matched: z.number().int(),
    differed: z.number().int(),
    failed: z.number().int(),
  }),
  comparison: z
    .object({
      identical: z.boolean().describe('equal after CRLF → LF and stripping (SWE-agent)'),
      byteIdentical: z.boolean(),
      difference: z.enum(['none', 'whitespace', 'index', 'content']),
      summary: z.string().describe('a diff from the recorded to the replayed patch'),
    })
    .nullable()
    .describe('null until the replay ends, or when it failed'),
  error: z.string().nullable().describe('why a failed replay could not run'),
});

export const replayResponse = replaySummaryResponse.extend({
  steps: z.array(replayStepResponse),
  recordedPatch: z.string().nullable(),
  replayedPatch: z.string().nullable(),
});

export const replayRequestedResponse = z.object({
  replayId: z.uuid(),
  runId: z.uuid(),
  status: replaySummaryResponse.shape.status,
});
