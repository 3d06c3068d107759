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
  type BwrapBind,
  type BwrapLayout,
  type HostPathMount,
} from './providers/bwrap-arguments.js';
export type { SandboxBind } from './providers/bwrap-binds.js';
export {
  parseBundleConfig,
  type BundleArgument,
  type BundleCommand,
  type BundleConfig,
} from './bundles/bundle-config.js';
export {
  findBundle,
  interpreterOf,
  loadBundle,
  loadBundles,
  type BundleFile,
  type BundleInterpreter,
  type ToolBundle,
} from './bundles/bundle-load.js';
export { stageBundles } from './bundles/bundle-stage.js';
export {
  checkInterpreters,
  installBundles,
  readBundleState,
  SWE_AGENT_PATHS,
  SWE_AGENT_TOOL_ENV,
  type BundleInstallOptions,
  type BundleShell,
  type BundleState,
} from './bundles/bundle-install.js';
export { sweAgentBinds, sweRepoDir } from './bundles/swe-layout.js';
export { bundleCommandsPrompt } from './bundles/bundle-prompt.js';
export {
  prepareRunBundles,
  RunBundleSession,
  type BundleWarn,
  type RunBundles,
} from './bundles/run-bundles.js';
export { readSandboxFile } from './bundles/sandbox-file.js';
export { DEFAULT_SANDBOX_SETTINGS, type SandboxDefaults } from './providers/sandbox-store.js';
export { DEFAULT_SESSION_TIMING, type SessionTiming } from './providers/session-timing.js';
export { safeEnvironment, SANDBOX_PATH } from './providers/safe-env.js';
export {
  SafeTextStream,
  elisionNote,
  safeText,
  shapeOutput,
  streamStoppedNote,
} from './session/output-shaping.js';
export { SessionSandbox } from './session-sandbox.js';
export type { FileOwner } from './files/workdir-files.js';
export {
  EgressProxy,
  type EgressEvent,
  type EgressListen,
  type EgressProxyOptions,
} from './proxy/egress-proxy.js';
export {
  decideRequest,
  decideTunnel,
  deniedHostMessage,
  hostAllowed,
  type EgressDecision,
  type EgressPolicyOptions,
  type GitHubEndpoints,
} from './proxy/egress-policy.js';
export {
  DEFAULT_REFRESH_MARGIN_MS,
  RefreshingTokenSource,
  normalizeRepository,
  type RefreshingTokenSourceOptions,
  type ScopedToken,
  type TokenMinter,
  type TokenScope,
  type TokenSource,
} from './proxy/token-source.js';
export {
  DEFAULT_EGRESS_ALLOWLIST,
  DEFAULT_EGRESS_PORT,
  EGRESS_SOCKET_NAME,
  INNER_EGRESS_DIR,
  PLACEHOLDER_TOKEN,
  egressSupervisorArguments,
  sandboxEgressEnvironment,
  type SandboxEgressSettings,
} from './proxy/sandbox-egress.js';
export {
  EgressProxyPool,
  type EgressLease,
  type EgressProxyPoolOptions,
  type SandboxEgressGateway,
} from './proxy/egress-proxy-pool.js';
export type { BwrapEgressProxyOptions } from './providers/bwrap.provider.js';
export type { BwrapEgress } from './providers/bwrap-arguments.js';
export { applyBotIdentity, type BotIdentity, type GitLocation } from './git/git-script.js';
export {
  TURN_REF_PREFIX,
  WORKTREE,
  snapshotTurn,
  turnRef,
  type TurnCheckpoint,
} from './git/turn-checkpoint.js';
export {
  turnDiff,
  type TurnDiff,
  type TurnDiffOptions,
  type TurnFileChange,
  type TurnFileStatus,
} from './git/turn-diff.js';
export { ToolSandboxAdapter, type ToolSandboxOptions } from './adapters/tool-sandbox.adapter.js';
export { BOT_IDENTITY, BOT_IDENTITY_ENV, hostGit, type HostGitOptions } from './git/host-git.js';
export { HostMirror, START_REF, WORK_REF_PREFIX, type MirrorPush } from './git/host-mirror.js';
export {
  bundleUnsavedWork,
  exportRef,
  MAX_EXPORT_BYTES,
  type RefExport,
  type WorkBundle,
} from './git/sandbox-export.js';
export {
  prepareWorkspace,
  type PrepareWorkspaceOptions,
  type PreparedWorkspace,
} from './git/workspace-seed.js';
export {
  canRunOneShot,
  HOOKLESS_GIT_ENV,
  type OneShotOptions,
  type OneShotResult,
  type OneShotRunner,
} from './providers/one-shot.js';
export { shellQuote } from './session/request-encoder.js';
export type {
  AcquiredSandbox,
  AcquireOptions,
  AcquireOutcome,
  SandboxBindingRecord,
  SandboxBindingStore,
  SandboxRetirement,
  SandboxRetirementReason,
  SandboxSetup,
  ThreadLock,
} from './lifecycle/lifecycle.ports.js';
export {
  LIFECYCLE_ERROR_REASONS,
  isSandboxUnreachable,
  replacementNotAllowed,
  sandboxUnreachable,
  threadHasNoSandbox,
} from './lifecycle/lifecycle.errors.js';
export {
  SandboxLifecycle,
  type SandboxLifecycleOptions,
  type WorkSnapshotter,
} from './lifecycle/sandbox-lifecycle.js';
export {
  IdleReclaimer,
  type IdleReclaimerOptions,
  type SweepReport,
} from './lifecycle/idle-reclaimer.js';
export {
  RECLAIMED_REF_PREFIX,
  snapshotWork,
  type WorkSnapshot,
} from './lifecycle/work-snapshot.js';
export {
  DEFAULT_RPC_TIMEOUT_MS,
  callSandbox,
  type SandboxRequester,
} from './rpc/sandbox-requester.js';
export { brokerStopping, isBrokerStopping } from './rpc/broker-stopping.js';
export { RpcSandbox } from './rpc/rpc-sandbox.js';
export { OutputStreams } from './rpc/output-streams.js';
export { SandboxBrokerClient, type SandboxAcquireInput } from './rpc/sandbox-broker.client.js';
export type { SessionProcess, SessionDriverOptions } from './session/bash-session.js';
export {
  RemoteSandboxProvider,
  type RemoteProviderOptions,
} from './providers/remote/remote.provider.js';
export {
  RemoteSandbox,
  type RemoteExecResult,
  type RemoteSession,
} from './providers/remote/remote-sandbox.js';
export {
  RemoteHttpClient,
  type RemoteConnectionOptions,
  type RemoteRequest,
} from './providers/remote/remote-http-client.js';
export {
  HttpApiSandboxProvider,
  type HttpApiProviderOptions,
} from './providers/remote/http-api.provider.js';
export { HTTP_API_PREFIX } from './providers/remote/http-api.schemas.js';
export {
  SandboxLimiter,
  ulimitCommand,
  type SandboxLimitOptions,
  type SandboxUlimits,
  type SpawnCommand,
} from './limits/sandbox-limiter.js';
export { CGROUP_MODES, detectCgroups, type CgroupMode } from './limits/cgroup-detect.js';
export type { CgroupBackend, LimitCounters } from './limits/cgroup-backend.js';
export { formatBytes, limitNote, type LimitHit } from './limits/limit-notes.js';
export { DEFAULT_ETC_ENTRIES, generatedEtcFiles } from './providers/sandbox-etc.js';
