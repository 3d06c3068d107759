export {
  actionsFromTraj,
  isCaravelTraj,
  type RecordedAction,
  type SweActionOptions,
} from './replay-source.js';
export {
  replayActions,
  SWE_SUBMISSION_SENTINEL,
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
export { observationDifference } from './observation-difference.js';
export {
  commandsOfAnswer,
  lastFencedBlock,
  renderToolCall,
  sweActionFormatOf,
  MINI_SUBMIT_MARKERS,
  SWE_AGENT_MULTILINE_COMMANDS,
  type SweActionFormat,
} from './swe-actions.js';
export {
  formatArgument,
  invokeFormat,
  multilineCommandsOf,
  renderBundleCall,
  type SweCommandSpec,
} from './swe-commands.js';
export { recordingOf, replayFinished, type ReplayRecording } from './replay-recording.js';
