export { startEmbedded, type StartOptions } from './commands/start.command.js';
export { runTask, type RunOptions, type RunReport } from './commands/run.command.js';
export { SERVICES, ENV_SECTIONS, type ServiceName, type ServiceOverrides } from './services.js';
export { embeddedConfigSchema, embeddedEnvSchema, type EmbeddedConfig } from './cli.config.js';
export {
  exportTrajectory,
  trajectoryOfThread,
  type TrajectoryExportOptions,
  type ThreadTrajectory,
} from './commands/trajectory.command.js';
export {
  replayTrajectory,
  type ReplayCommandOptions,
  type ReplayReport,
} from './commands/replay.command.js';
export { attachThread, type AttachOptions } from './commands/attach.command.js';
export { branchDiff, localRepository, type LocalRepository } from './commands/local-repository.js';
export { runCli, type CliIo, type CliOutcome } from './commands/cli.js';
export { renderSecretKeys, secretKeysOf, SECRET_KEYS_FILE } from './secret-keys.js';
