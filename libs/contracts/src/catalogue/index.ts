import type { RequestDefinition } from '../define-request.js';
import { AgentChat, RunInterruptNotice } from './agent.requests.js';
import { DeadLetterRecordedV1 } from './dead-letter.messages.js';
import { ScheduleThreadWakeup } from './dispatch.requests.js';
import {
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  StartRunV1,
} from './run.messages.js';
import { PullRequestHeadMovedV1, ReviewRequestedV1 } from './pull-request.messages.js';
import { SandboxExecOutput } from './sandbox-stream.requests.js';
import { SANDBOX_REQUESTS, SandboxCallerAlive } from './sandbox.requests.js';
import { TriggerReceivedV1 } from './trigger.messages.js';

export {
  DeadLetterRecordedV1,
  PullRequestHeadMovedV1,
  ReviewRequestedV1,
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  StartRunV1,
  TriggerReceivedV1,
};
export * from './common.js';
export * from './sandbox.requests.js';
export * from './sandbox-stream.requests.js';
export * from './agent.requests.js';

/** Every message Caravel speaks. Contract tests walk this list. */
export const CATALOGUE = [
  TriggerReceivedV1,
  ReviewRequestedV1,
  PullRequestHeadMovedV1,
  StartRunV1,
  RunStartedV1,
  RunStepV1,
  RunOutputV1,
  RunFinishedV1,
  RunAttemptsSelectedV1,
  DeadLetterRecordedV1,
] as const;

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
];
