import { DeadLetterRecordedV1 } from './dead-letter.messages.js';
import {
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  StartRunV1,
} from './run.messages.js';
import { PullRequestHeadMovedV1, ReviewRequestedV1 } from './pull-request.messages.js';
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
