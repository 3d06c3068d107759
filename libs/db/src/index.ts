// Connections
export { openDatabase, type OpenDatabaseOptions } from './connection/open-database.js';
export type { Database, DatabaseLogger } from './connection/database.types.js';
export { parseDatabaseUrl, redactUrl, type DatabaseLocation } from './connection/database-url.js';
export { isUniqueViolation } from './connection/database-errors.js';
export { toJson } from './connection/json.js';

// Migrations
export { migrate, type MigrateOptions, type MigrateResult } from './migrations/migration-runner.js';
export { defaultMigrationsDir } from './migrations/migrations-dir.js';
export {
  checkCheckpointerTables,
  checkMigrated,
  MIGRATE_COMMAND,
} from './migrations/migration-check.js';

// Per-service roles: the tables each service's code touches, and the grants that give it them
export { SERVICE_TABLES, type ServiceName } from './grants/service-tables.js';
export type { TableUse } from './grants/service-tables.types.js';
export {
  applyServiceGrants,
  GRANT_SERVICES,
  grantsScript,
  isGrantService,
  serviceGrantSql,
  serviceRole,
} from './grants/service-grants.js';

// Schema types (generated from prisma/schema.prisma)
export type * from './generated/types.js';

// The closed sets of the state columns (the database refuses any other value)
export * from './repositories/states.js';
export type { RowOf } from './repositories/row-of.js';

// Embedded bus tables and leases (repositories used by @caravel/messaging's embedded adapter)
export * from './bus/index.js';

// Repositories (wave 1)
export type { Executor } from './repositories/executor.js';
export {
  DeliveryRepository,
  type DeliveryClaim,
  type DeliveryRepositoryOptions,
  type DeliveryRow,
  type NewDelivery,
} from './repositories/delivery.repository.js';
export {
  ThreadRepository,
  type ThreadRow,
  type ThreadUpsert,
  type ThreadStatusChange,
  type ThreadListQuery,
} from './repositories/thread.repository.js';
export {
  RunRepository,
  type RunRow,
  type NewRun,
  type RunFinish,
  type StaleQuery,
} from './repositories/run.repository.js';
export {
  RunQueueRepository,
  type RunQueueRow,
  type NewRunQueueEntry,
  type ActiveQueueRun,
  type KeyLastAdmitted,
  type QueueSnapshot,
} from './repositories/run-queue.repository.js';
export { fairOrder, queuePositions, type QueuePosition } from './repositories/run-queue-order.js';
export { RunNoticeRepository } from './repositories/run-notice.repository.js';
export {
  ThreadWakeupRepository,
  type ThreadWakeupRow,
  type NewThreadWakeup,
  type WakeupScheduling,
} from './repositories/thread-wakeup.repository.js';
export {
  RunEventRepository,
  type RunEventRow,
  type NewRunEvent,
  type RunEventQuery,
} from './repositories/run-event.repository.js';
export {
  ThreadMessageRepository,
  type ClaimedThreadMessage,
  type ThreadMessageRow,
  type NewThreadMessage,
} from './repositories/thread-message.repository.js';
export {
  SandboxRepository,
  type SandboxRow,
  type SandboxBinding,
  type RetiredSandboxRow,
  type Retirement,
} from './repositories/sandbox.repository.js';
export { InboxRepository } from './repositories/inbox.repository.js';
export {
  OutboxRepository,
  type OutboxRow,
  type NewOutboxEntry,
  type UnpublishedQuery,
} from './repositories/outbox.repository.js';
export {
  UserTokenRepository,
  type UserTokenPage,
  type UserTokenRow,
  type UserTokenUpsert,
} from './repositories/user-token.repository.js';
export {
  PersonalTokenRepository,
  type NewPersonalToken,
  type PersonalTokenRow,
} from './repositories/personal-token.repository.js';
export { SignInPinRepository } from './repositories/sign-in-pin.repository.js';
export {
  DashboardSessionRepository,
  type DashboardSessionRow,
  type NewDashboardSession,
  type SessionRevocationBy,
} from './repositories/dashboard-session.repository.js';
export {
  IdentityRepository,
  type IdentityHandle,
  type IdentityLinks,
  type IdentityRow,
} from './repositories/identity.repository.js';
export {
  ThreadPlanRepository,
  type ThreadPlanApproval,
  type ThreadPlanRow,
  type ThreadPlanSave,
} from './repositories/thread-plan.repository.js';
export { ThreadStopRepository, type ThreadStopRow } from './repositories/thread-stop.repository.js';
export {
  TriggerRefusalRepository,
  type NewTriggerRefusal,
  type TriggerRefusalRow,
} from './repositories/trigger-refusal.repository.js';
export {
  PullRequestHeadRepository,
  type PullRequestHeadRow,
  type PullRequestKey,
} from './repositories/pull-request-head.repository.js';
export {
  UserInstructionsRepository,
  type UserInstructionsRow,
} from './repositories/user-instructions.repository.js';
export {
  ConnectTenantRepository,
  type ConnectInstall,
  type ConnectTenantRow,
} from './repositories/connect-tenant.repository.js';
export {
  UserProfileRepository,
  type UserProfileRow,
  type UserProfileSave,
} from './repositories/user-profile.repository.js';
export {
  TeamDefaultsRepository,
  type TeamDefaultsRow,
  type TeamDefaultsSave,
} from './repositories/team-defaults.repository.js';
export {
  MAX_REPOSITORY_INSTRUCTIONS_CHARS,
  RepositoryInstructionsRepository,
  type RepositoryInstructionsRow,
} from './repositories/repository-instructions.repository.js';
export {
  EnabledRepositoryRepository,
  type EnabledRepositoryRow,
  type EnabledRepositorySave,
} from './repositories/enabled-repository.repository.js';
export {
  FindingRepository,
  findingOf,
  type AppendOutcome,
  type LedgerFindingRow,
  type LedgerHeads,
  type LedgerVerdict,
  type LedgerKey,
  type LedgerUpdateOutcome,
  type ReviewLedgerRow,
  type UpdateOutcome,
} from './repositories/finding.repository.js';
export {
  CiWatchRepository,
  ciWatchKey,
  type CiWatchRow,
  type CiWatchSave,
  type NewCiWatch,
} from './repositories/ci-watch.repository.js';
export {
  ReviewStyleRepository,
  type FindingOutcomeRow,
  type NewReviewStyle,
  type ReviewStyleCounts,
  type ReviewStyleRow,
  type ReviewStyleSummaryRow,
} from './repositories/review-style.repository.js';
export {
  ReviewedPullRequestRepository,
  type ReviewedPullRequestQuery,
  type ReviewedPullRequestRow,
} from './repositories/reviewed-pull-request.repository.js';
export {
  CI_FIX_REQUESTER,
  MERGED_STOP_REASON,
  OpsRepository,
  type OpsBucketRow,
  type OpsDurationRow,
  type OpsFailureRow,
  type OpsPullRequestRow,
  type OpsReviewRow,
  type OpsStatusRow,
  type OpsWindow,
} from './repositories/ops.repository.js';
export {
  EvalRunRepository,
  type EvalAttemptRow,
  type EvalRunQuery,
  type EvalRunRow,
  type EvalRunSummaryRow,
  type NewEvalRun,
} from './repositories/eval-run.repository.js';
export {
  EvalProposalRepository,
  type EvalProposalDecision,
  type EvalProposalQuery,
  type AcceptedStyle,
  type EvalProposalRow,
  type NewEvalProposal,
  type NewStyleDraft,
} from './repositories/eval-proposal.repository.js';
export {
  EvalReviewCaseRepository,
  type EvalReviewCaseRow,
} from './repositories/eval-review-case.repository.js';
export {
  EvalScheduleRepository,
  type EvalScheduleChange,
  type EvalScheduleRow,
  type NewEvalSchedule,
} from './repositories/eval-schedule.repository.js';
export {
  BudgetLimitRepository,
  repositoryBudgetSubject,
  TEAM_BUDGET_SUBJECT,
  type ApplicableBudgets,
  type BudgetLimitRow,
} from './repositories/budget-limit.repository.js';
export {
  BudgetPauseRepository,
  type AwaitingBudgetPause,
  type AwaitingPauseQuery,
  type BudgetPauseRow,
  type BudgetPauseStanding,
} from './repositories/budget-pause.repository.js';
export {
  SlackMessageRepository,
  type SlackMessageKey,
  type SlackMessageRepositoryOptions,
} from './repositories/slack-message.repository.js';
