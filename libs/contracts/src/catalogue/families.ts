import { defineMessageFamily } from '../define-family.js';
import { RunSubagentV1, RunTodosV1 } from './agent-work.messages.js';
import { ReplayFinishedV1, ReplayStartedV1, ReplayStepV1 } from './replay.messages.js';
import {
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
} from './run.messages.js';

/**
 * Everything a run tells the bus (`evt.run.*`), in the order the runner published it: a reader
 * that has a run's end has everything before it (the event index, the `.traj` it is built from).
 */
export const RunEvents = defineMessageFamily({
  kind: 'evt',
  prefix: 'run',
  description: "A run's start, steps, output, todos, subagents, selection and end, in order.",
  consumerName: 'run-events',
  members: [
    RunStartedV1,
    RunStepV1,
    RunOutputV1,
    RunTodosV1,
    RunSubagentV1,
    RunAttemptsSelectedV1,
    RunFinishedV1,
  ],
});

/** Everything a replay tells the bus (`evt.replay.*`), in the order the runner published it. */
export const ReplayEvents = defineMessageFamily({
  kind: 'evt',
  prefix: 'replay',
  description: "A replay's start, each replayed call and its verdict, in order.",
  consumerName: 'replay-events',
  members: [ReplayStartedV1, ReplayStepV1, ReplayFinishedV1],
});
