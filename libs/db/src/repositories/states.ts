import {
  runOutcome,
  triggerKind,
  triggerSource,
  type RunOutcome,
  type TriggerKind,
  type TriggerSource,
} from '@caravel/contracts';
import {
  CONFIDENCES,
  FINDING_STATUSES as FINDING_STATUS_SET,
  REVIEW_EVENTS,
  SEVERITIES,
  VERDICT_REASONS,
  SIDES,
  SURFACE_STATES,
  type Confidence,
  type FindingStatus as FindingStatusOf,
  type ReviewEvent,
  type Severity,
  type Side,
  type SurfaceState,
  type VerdictReason,
} from '@caravel/findings';

// The closed sets of the state columns, each defined once: taken from the message catalogue where
// a message carries the values, defined here otherwise. The generated table types use them
// (`@kyselyType` in schema.prisma) and a CHECK constraint makes the database refuse any other
// value; a new value needs a migration that replaces its constraint (docs/db.md).

/** Where a thread or a delivery came from (`threads.source`, `deliveries.source`). */
export const SOURCES = triggerSource.options;
export type Source = TriggerSource;

/**
 * Where a run is (`runs.status`): `waiting` for a slot in the run queue, `queued` (admitted, its
 * start published, no runner yet), `running`, `merged` (its trigger joined the thread's active
 * run, so it never ran), or how it ended.
 */
export const RUN_STATUSES = [
  'waiting',
  'queued',
  'running',
  'merged',
  ...runOutcome.options,
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a run stopped: how it ended (the runner's outcome), or `merged` into the active run. */
export type FinishedRunStatus = RunOutcome | 'merged';

/** A thread is `running` while a run holds it (`threads.active_run_id`), `idle` otherwise. */
export const THREAD_STATUSES = ['idle', 'running'] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

/** How a follow-up reaches a busy thread's run: before its next model call, or by stopping it. */
export const FOLLOW_UP_DELIVERIES = ['inject', 'interrupt'] as const;
export type FollowUpDelivery = (typeof FOLLOW_UP_DELIVERIES)[number];

/**
 * A follow-up for the agent, a person's command to run in the thread's sandbox, or a person's
 * request to stop the thread's run (`stop`, delivered as an interrupt: the run ends and nothing
 * starts after it; dispatch marks it taken by the run when the run ends).
 */
export const FOLLOW_UP_KINDS = [...triggerKind.options, 'stop'] as const;
export type FollowUpKind = TriggerKind | 'stop';

/** What dispatch tells a run's source channel about the run (`run_notices.kind`). */
export const RUN_NOTICE_KINDS = ['failure', 'queue_position'] as const;
export type RunNoticeKind = (typeof RUN_NOTICE_KINDS)[number];

/** A thread's sandbox binding exists only once its setup succeeded: it is `ready`. */
export const SANDBOX_STATUSES = ['ready'] as const;
export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];

/**
 * Why a sandbox stopped being its thread's: `recreated` on request and `replaced` when it stopped
 * answering (both kept for recovery), `reclaimed` when idle and `gone` when its provider lost it.
 */
export const RETIREMENT_REASONS = ['recreated', 'replaced', 'reclaimed', 'gone'] as const;
export type RetirementReason = (typeof RETIREMENT_REASONS)[number];

/** Where a thread's plan stands (`thread_plans.status`). */
export const THREAD_PLAN_STATUSES = ['awaiting_approval', 'approved'] as const;
export type ThreadPlanStatus = (typeof THREAD_PLAN_STATUSES)[number];

/** Which of a user's tokens for a provider (`user_tokens.kind`). */
export const USER_TOKEN_KINDS = ['access', 'refresh'] as const;
export type UserTokenKind = (typeof USER_TOKEN_KINDS)[number];

/** An unsettled embedded-bus message for one consumer: `pending` delivery or `inflight`. */
export const BUS_DELIVERY_STATES = ['pending', 'inflight'] as const;
export type BusDeliveryState = (typeof BUS_DELIVERY_STATES)[number];

// The findings ledger's columns (`findings`): the sets are the findings model's own.

/** How bad a finding is (`findings.severity`, `findings.surface_threshold`). */
export const FINDING_SEVERITIES = SEVERITIES;
export type FindingSeverity = Severity;

/** How sure its reviewer is (`findings.confidence`). */
export const FINDING_CONFIDENCES = CONFIDENCES;
export type FindingConfidence = Confidence;

/** Which side of the diff its lines are on (`findings.side`, `findings.anchor_side`). */
export const FINDING_SIDES = SIDES;
export type FindingSide = Side;

/** Open, resolved by a commit, or dismissed (`findings.status`). */
export const FINDING_STATUSES = FINDING_STATUS_SET;
export type FindingStatus = FindingStatusOf;

/** Caravel's own comment for it on the SCM (`findings.surface_state`). */
export const FINDING_SURFACE_STATES = SURFACE_STATES;
export type FindingSurfaceState = SurfaceState;

/** The event of the review last published on a pull request (`review_ledgers.verdict_event`). */
export const REVIEW_VERDICT_EVENTS = REVIEW_EVENTS;
export type ReviewVerdictEvent = ReviewEvent;

/** Why that review's event is what it is (`review_ledgers.verdict_reason`). */
export const REVIEW_VERDICT_REASONS = VERDICT_REASONS;
export type ReviewVerdictReason = VerdictReason;

/**
 * How a review style version was made (`review_styles.mode`): from history, from outcomes, or by a
 * person's edit that the reviewer eval gate accepted.
 */
export const REVIEW_STYLE_MODES = ['bootstrap', 'continual', 'edited'] as const;
export type ReviewStyleMode = (typeof REVIEW_STYLE_MODES)[number];

/** What a person's API token may do (`personal_tokens.scope`): read, or read and act in threads. */
export const PERSONAL_TOKEN_SCOPES = ['read', 'act'] as const;
export type PersonalTokenScope = (typeof PERSONAL_TOKEN_SCOPES)[number];

/** What a signed-in person may do in the dashboard (`dashboard_sessions.role`). */
export const DASHBOARD_ROLES = ['member', 'admin'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

/**
 * Why a dashboard session ended before it expired (`dashboard_sessions.revoked_reason`): its own
 * sign-out, the person's "sign out everywhere", or an admin (or the machine token) ending them.
 */
export const SESSION_REVOCATIONS = ['sign_out', 'everywhere', 'admin'] as const;
export type SessionRevocation = (typeof SESSION_REVOCATIONS)[number];

/** Where an eval run is (`eval_runs.status`): attempts still to record, or every one recorded. */
export const EVAL_RUN_STATUSES = ['running', 'finished'] as const;
export type EvalRunStatus = (typeof EVAL_RUN_STATUSES)[number];

/**
 * What an eval run measured (`eval_runs.kind`, `eval_schedules.kind`): the coding agent on Harbor
 * tasks (resolve rate), or the reviewer on a labelled set (precision, recall, F1).
 */
export const EVAL_RUN_KINDS = ['harbor', 'review'] as const;
export type EvalRunKind = (typeof EVAL_RUN_KINDS)[number];

/** Whether a scheduled suite runs each night (`eval_schedules.state`). */
export const EVAL_SCHEDULE_STATES = ['active', 'paused'] as const;
export type EvalScheduleState = (typeof EVAL_SCHEDULE_STATES)[number];

/**
 * Whose dollar budget a limit is (`budget_limits.scope`): the team's, a repository's or a
 * person's; a run's effective budget is the tightest that applies (docs/agent-runner.md).
 */
export const BUDGET_SCOPES = ['team', 'repository', 'person'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/** Where a proposed configuration change is (`eval_proposals.status`): waiting for the gate, or its verdict. */
export const EVAL_PROPOSAL_STATUSES = ['pending', 'accepted', 'refused'] as const;
export type EvalProposalStatus = (typeof EVAL_PROPOSAL_STATUSES)[number];

/** What a proposal changes (`eval_proposals.kind`): the agent's configuration, or a learned review style. */
export const EVAL_PROPOSAL_KINDS = ['agent-config', 'review-style'] as const;
export type EvalProposalKind = (typeof EVAL_PROPOSAL_KINDS)[number];
