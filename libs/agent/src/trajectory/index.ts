export {
  trajSchema,
  trajStepSchema,
  trajHistoryItemSchema,
  trajInfoSchema,
  trajModelStatsSchema,
  trajAttemptSchema,
  trajContentSchema,
  type Traj,
  type TrajStep,
  type TrajHistoryItem,
  type TrajInfo,
  type TrajModelStats,
  type TrajAttempt,
} from './traj.schema.js';
export { trajReadSchema } from './traj-read.schema.js';
export { trajJsonSchema, renderTrajJsonSchema, TRAJ_JSON_SCHEMA_FILE } from './traj-json-schema.js';
export { parseTraj, parseTrajValue, jsonPath } from './traj-parser.js';
export { readTrajectoryFile, isMiniSweAgentTraj, predictionOf } from './swe-formats.js';
export { extractReplayActions, type ReplayAction } from './replay-actions.js';
export {
  TrajectoryBuilder,
  buildTrajectory,
  type StepRecord,
  type TrajectoryBuilderOptions,
} from './trajectory-builder.js';
export { trajFromSelection } from './traj-attempts.js';
export {
  trajectoryFromEvents,
  submissionOfSteps,
  type CaravelReplayConfig,
  type CaravelRunInfo,
  type TrajectoryFromEventsOptions,
} from './from-events.js';
export { readRunEvents, type RunEventInput, type RunEventsOfRun } from './from-events.parse.js';
