export { actionsFromTraj, isCaravelTraj, type RecordedAction } from './replay-source.js';
export {
  replayActions,
  type ReplayOptions,
  type ReplayResult,
  type ReplayStepOutcome,
  type ReplayVerdict,
} from './replay-engine.js';
export {
  RecordingReplyChannel,
  SandboxCommitScm,
  replayTools,
  type SandboxCommitScmOptions,
} from './replay-tools.js';
export {
  comparePatches,
  normalisePatch,
  type PatchComparison,
  type PatchDifference,
} from './patch-compare.js';
export { replayStartOf, type ReplayStart } from './replay-start.js';
