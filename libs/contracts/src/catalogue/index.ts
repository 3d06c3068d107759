import type { Consumable } from '../define-family.js';
import type { RequestDefinition } from '../define-request.js';
import { RunSubagentV1, RunTodosV1 } from './agent-work.messages.js';
import { AgentChat, RunInterruptNotice } from './agent.requests.js';
import { CiCheckReportedV1 } from './ci.messages.js';
import { DeadLetterRecordedV1 } from './dead-letter.messages.js';
import { ReplayEvents, RunEvents } from './families.js';
import { ManageBabySit, ScheduleThreadWakeup } from './dispatch.requests.js';
import {
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  StartRunV1,
} from './run.messages.js';
import { PullRequestHeadMovedV1, ReviewRequestedV1 } from './pull-request.messages.js';
import { AnalyzeReviewStyleV1 } from './review-style.messages.js';
import { ReplayFinishedV1, ReplayRunV1, ReplayStartedV1, ReplayStepV1 } from './replay.messages.js';
import { SandboxExecOutput } from './sandbox-stream.requests.js';
import { SANDBOX_REQUESTS, SandboxCallerAlive } from './sandbox.requests.js';
import { StopThreadV1 } from './stop.messages.js';
import { TriggerReceivedV1 } from './trigger.messages.js';

export {
  AnalyzeReviewStyleV1,
  CiCheckReportedV1,
  DeadLetterRecordedV1,
  PullRequestHeadMovedV1,
  ReplayFinishedV1,
  ReplayRunV1,
  ReplayStartedV1,
  ReplayStepV1,
  ReviewRequestedV1,
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  RunSubagentV1,
  RunTodosV1,
  StartRunV1,
  StopThreadV1,
  TriggerReceivedV1,
};
export { ReplayEvents, RunEvents };
export { todoItem, todoStatus } from './agent-work.messages.js';
export {
  MAX_UNPUBLISHED_FILE_CHARS,
  MAX_UNPUBLISHED_FILES,
  runUnpublished,
  type RunUnpublished,
} from './run.messages.js';
export * from './common.js';
export {
  CHECK_RUN_CONCLUSIONS,
  CHECK_RUN_STATUSES,
  COMMIT_STATUS_STATES,
  ciCheck,
  type CiCheck,
} from './ci.messages.js';
export * from './source-subject.js';
export * from './sandbox.requests.js';
export * from './sandbox-stream.requests.js';
export * from './agent.requests.js';
export { patchComparison, replayId, replayIdFor, replayStepOutcome } from './replay.messages.js';
export { reviewStyleMode, type ReviewStyleModeName } from './review-style.messages.js';

/** Every message Caravel speaks. Contract tests walk this list. */
export const CATALOGUE = [
  TriggerReceivedV1,
  ReviewRequestedV1,
  PullRequestHeadMovedV1,
  CiCheckReportedV1,
  StartRunV1,
  RunStartedV1,
  RunStepV1,
  RunOutputV1,
  RunFinishedV1,
  RunAttemptsSelectedV1,
  RunTodosV1,
  RunSubagentV1,
  DeadLetterRecordedV1,
  AnalyzeReviewStyleV1,
  StopThreadV1,
  ReplayRunV1,
  ReplayStartedV1,
  ReplayStepV1,
  ReplayFinishedV1,
] as const;

/**
 * The families a service may take through one durable, in their order per thread (see
 * `defineMessageFamily`). Contract tests check each holds every catalogue message under it.
 */
export const FAMILIES = [RunEvents, ReplayEvents] as const;

/** Everything a durable consumer can take: each message, and each family. */
export const CONSUMABLES: readonly Consumable[] = [...CATALOGUE, ...FAMILIES];

/**
 * Every request/reply operation Caravel serves. The Nest transport parses a request against its
 * definition here before the `@MessagePattern` handler sees it.
 */
export const REQUEST_CATALOGUE: readonly RequestDefinition[] = [
  ...SANDBOX_REQUESTS,
  SandboxCallerAlive,
  SandboxExecOutput,
  AgentChat,
  RunInterruptNotice,
  ScheduleThreadWakeup,
  ManageBabySit,
];
