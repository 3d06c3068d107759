export type {
  EditFileOptions,
  ExecOptions,
  ExecResult,
  FileEntry,
  GrepMatch,
  GrepOptions,
  GrepResult,
  ListFilesOptions,
  ListFilesResult,
  Sandbox,
  SandboxLimits,
  SandboxLogger,
  SandboxProvider,
  SandboxProviderName,
  SandboxSpec,
} from './sandbox.types.js';
export {
  SANDBOX_ERROR_REASONS,
  sandboxError,
  sandboxErrorReason,
  type SandboxErrorReason,
} from './sandbox.errors.js';
export { LocalSandboxProvider, type LocalProviderOptions } from './providers/local.provider.js';
export {
  BwrapSandboxProvider,
  BWRAP_WORKDIR,
  DEFAULT_SYSTEM_PATHS,
  bwrapAvailable,
  type BwrapProviderOptions,
} from './providers/bwrap.provider.js';
export {
  bwrapArguments,
  type BwrapLayout,
  type HostPathMount,
} from './providers/bwrap-arguments.js';
export { DEFAULT_SANDBOX_SETTINGS, type SandboxDefaults } from './providers/sandbox-store.js';
export { DEFAULT_SESSION_TIMING, type SessionTiming } from './providers/session-timing.js';
export { safeEnvironment, SANDBOX_PATH } from './providers/safe-env.js';
export { safeText, shapeOutput, elisionNote } from './session/output-shaping.js';
export { SessionSandbox } from './session-sandbox.js';
export type { FileOwner } from './files/workdir-files.js';
