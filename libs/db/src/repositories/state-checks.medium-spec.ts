import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import { newFindingId } from '@caravel/findings';
import { aFinding } from '@caravel/findings/testing';
import { sql, type Insertable } from 'kysely';
import type { Database } from '../connection/database.types.js';
import type { EvalRun, EvalSchedule } from '../generated/types.js';
import { openDatabase } from '../connection/open-database.js';
import { BudgetLimitRepository, type BudgetLimitRow } from './budget-limit.repository.js';
import {
  DashboardSessionRepository,
  type DashboardSessionRow,
} from './dashboard-session.repository.js';
import { DeliveryRepository, type DeliveryRow } from './delivery.repository.js';
import type { EvalProposalRow } from './eval-proposal.repository.js';
import type { EvalRunRow } from './eval-run.repository.js';
import { RunNoticeRepository } from './run-notice.repository.js';
import { RunRepository, type RunRow } from './run.repository.js';
import {
  SandboxRepository,
  type RetiredSandboxRow,
  type SandboxRow,
} from './sandbox.repository.js';
import {
  FindingRepository,
  type LedgerFindingRow,
  type ReviewLedgerRow,
} from './finding.repository.js';
import { PersonalTokenRepository } from './personal-token.repository.js';
import { ReviewStyleRepository, type ReviewStyleRow } from './review-style.repository.js';
import {
  BUDGET_SCOPES,
  BUS_DELIVERY_STATES,
  DASHBOARD_ROLES,
  EVAL_PROPOSAL_KINDS,
  EVAL_PROPOSAL_STATUSES,
  EVAL_RUN_KINDS,
  EVAL_RUN_STATUSES,
  EVAL_SCHEDULE_STATES,
  FINDING_CONFIDENCES,
  FINDING_SEVERITIES,
  FINDING_SIDES,
  FINDING_STATUSES,
  FINDING_SURFACE_STATES,
  FOLLOW_UP_DELIVERIES,
  FOLLOW_UP_KINDS,
  PERSONAL_TOKEN_SCOPES,
  RETIREMENT_REASONS,
  REVIEW_STYLE_MODES,
  REVIEW_VERDICT_EVENTS,
  REVIEW_VERDICT_REASONS,
  RUN_NOTICE_KINDS,
  RUN_STATUSES,
  SANDBOX_STATUSES,
  SESSION_REVOCATIONS,
  SOURCES,
  THREAD_PLAN_STATUSES,
  THREAD_STATUSES,
  USER_TOKEN_KINDS,
  type BudgetScope,
  type DashboardRole,
  type EvalProposalKind,
  type EvalProposalStatus,
  type EvalRunStatus,
  type FindingConfidence,
  type FindingSeverity,
  type FindingSide,
  type FindingStatus,
  type FindingSurfaceState,
  type FollowUpDelivery,
  type FollowUpKind,
  type RetirementReason,
  type ReviewStyleMode,
  type ReviewVerdictEvent,
  type ReviewVerdictReason,
  type RunStatus,
  type SandboxStatus,
  type SessionRevocation,
  type Source,
  type ThreadPlanStatus,
  type ThreadStatus,
  type UserTokenKind,
} from './states.js';
import { ThreadMessageRepository, type ThreadMessageRow } from './thread-message.repository.js';
import { ThreadPlanRepository, type ThreadPlanRow } from './thread-plan.repository.js';
import { ThreadRepository, type ThreadRow } from './thread.repository.js';
import { TriggerRefusalRepository } from './trigger-refusal.repository.js';
import { UserTokenRepository, type UserTokenRow } from './user-token.repository.js';

/** CHECK constraints that are not a state column's set (the team's one row, a size cap). */
const OTHER_CHECKS = [
  'budget_limits_budget_usd_check',
  'budget_pauses_amounts_check',
  'budget_pauses_grant_check',
  'dashboard_sessions_lifetime_check',
  'dashboard_sessions_revoked_check',
  'eval_proposals_review_style_check',
  'eval_schedules_attempts_check',
  'eval_schedules_hour_check',
  'repository_instructions_length_check',
  'review_ledgers_verdict_whole_check',
  'team_defaults_id_check',
];

/** Each state column and its set, as the code defines it. */
const STATE_COLUMNS: [table: string, column: string, set: readonly string[]][] = [
  ['budget_limits', 'scope', BUDGET_SCOPES],
  ['bus_deliveries', 'state', BUS_DELIVERY_STATES],
  ['dashboard_sessions', 'revoked_reason', SESSION_REVOCATIONS],
  ['dashboard_sessions', 'role', DASHBOARD_ROLES],
  ['deliveries', 'source', SOURCES],
  ['eval_proposals', 'kind', EVAL_PROPOSAL_KINDS],
  ['eval_proposals', 'status', EVAL_PROPOSAL_STATUSES],
  ['eval_runs', 'kind', EVAL_RUN_KINDS],
  ['eval_runs', 'status', EVAL_RUN_STATUSES],
  ['eval_schedules', 'kind', EVAL_RUN_KINDS],
  ['eval_schedules', 'state', EVAL_SCHEDULE_STATES],
  ['findings', 'anchor_side', FINDING_SIDES],
  ['findings', 'confidence', FINDING_CONFIDENCES],
  ['findings', 'severity', FINDING_SEVERITIES],
  ['findings', 'side', FINDING_SIDES],
  ['findings', 'status', FINDING_STATUSES],
  ['findings', 'surface_state', FINDING_SURFACE_STATES],
  ['findings', 'surface_threshold', FINDING_SEVERITIES],
  ['personal_tokens', 'scope', PERSONAL_TOKEN_SCOPES],
  ['retired_sandboxes', 'reason', RETIREMENT_REASONS],
  ['review_ledgers', 'verdict_event', REVIEW_VERDICT_EVENTS],
  ['review_ledgers', 'verdict_reason', REVIEW_VERDICT_REASONS],
  ['review_styles', 'mode', REVIEW_STYLE_MODES],
  ['run_notices', 'kind', RUN_NOTICE_KINDS],
  ['runs', 'status', RUN_STATUSES],
  ['sandboxes', 'status', SANDBOX_STATUSES],
  ['thread_messages', 'delivery', FOLLOW_UP_DELIVERIES],
  ['thread_messages', 'kind', FOLLOW_UP_KINDS],
  ['thread_plans', 'status', THREAD_PLAN_STATUSES],
  ['threads', 'source', SOURCES],
  ['threads', 'status', THREAD_STATUSES],
  ['trigger_refusals', 'source', SOURCES],
  ['user_tokens', 'kind', USER_TOKEN_KINDS],
];

/** A text column named like a state (`status`, `…_kind`, `…_reason`, …): it needs a set above. */
const STATE_LIKE =
  /(?:^|_)(?:status|state|kind|mode|scope|source|severity|confidence|side|delivery|event|reason|threshold|role)$/;

/** Text columns named like a state that are not a closed set, each with why. */
const OPEN_COLUMNS: Record<string, string> = {
  'bus_dead_letters.reason': "the failure's message, as the handler threw it",
  'ci_watches.stopped_reason': 'a sentence for the people on the pull request',
  'deliveries.event': "the sender's event name (GitHub's X-GitHub-Event), recorded as sent",
  'eval_attempts.exit_status': "the agent's exit status, `submitted` or `exit_*` (a pattern)",
  'eval_proposals.reason': "the gate's explanation of its verdict",
  'eval_schedules.source': 'where the suite is (a folder, a file or a URL), not a channel',
  'review_ledgers.skip_reason': 'a sentence on why a pull request was not reviewed',
  'runs.exit_status': "the agent's exit status, `submitted` or `exit_*` (a pattern)",
  'trigger_refusals.reason': 'why a trigger was refused, as dispatch logged it',
};

/** True only when A and B are the same type (not merely assignable). */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when A and B are the same type: a check of the typecheck stage, not of jest. */
function sameType<A, B>(proof: Same<A, B>): void {
  expect(proof).toBe(true);
}

const CHECK_VIOLATION = { code: '23514' };

await describeEachDatabase('state columns', openDatabase, (target) => {
  let database: Database;
  let threads: ThreadRepository;
  let runs: RunRepository;

  beforeAll(async () => {
    database = await target.open();
    threads = new ThreadRepository(database.db);
    runs = new RunRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const newRun = async (): Promise<RunRow> => {
    const threadId = randomUUID();
    await threads.upsert({ id: threadId, source: 'github' });
    return (await runs.create({ id: randomUUID(), threadId, triggerId: randomUUID() })).run;
  };

  /** A finding in a ledger of its own (the reviewer thread id is any uuid here). */
  const newFinding = async (threadId: string): Promise<string> => {
    const findings = new FindingRepository(database.db);
    await findings.openLedger({ threadId, owner: 'acme', repo: 'widgets', number: 1 });
    const finding = aFinding({ id: newFindingId() });
    await findings.append(threadId, finding);
    return finding.id;
  };

  /** A dashboard session written with a role or an ending outside its set. */
  const sessionRefusals = (): [column: string, write: () => Promise<unknown>][] => {
    const sessions = new DashboardSessionRepository(database.db);
    const session = {
      idSha256: randomUUID(),
      login: 'octocat',
      githubId: 1,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
      userAgent: null,
      address: null,
    };
    return [
      // @ts-expect-error 'owner' is not a dashboard role
      ['dashboard_sessions.role', () => sessions.create({ ...session, role: 'owner' })],
      [
        'dashboard_sessions.revoked_reason',
        async () => {
          await sessions.create({ ...session, role: 'member' });
          // @ts-expect-error 'stolen' is not a way a session ends
          return sessions.revoke(session.idSha256, { reason: 'stolen', by: 'x', at: new Date() });
        },
      ],
    ];
  };

  it('has one CHECK constraint per state column, allowing exactly its set', async () => {
    const { rows: all } = await sql<{
      name: string;
      table: string;
      column: string;
      definition: string;
    }>`
      select c.conname as name, c.conrelid::regclass::text as "table", a.attname as "column",
             pg_get_constraintdef(c.oid) as definition
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'c' and c.connamespace = current_schema()::regnamespace
      order by 2, 3`.execute(database.db);
    expect(all.map((row) => row.name).filter((name) => OTHER_CHECKS.includes(name))).toEqual(
      [...OTHER_CHECKS].sort(),
    );
    const rows = all.filter((row) => !OTHER_CHECKS.includes(row.name));
    const allowed = rows.map(({ table, column, definition }) => [
      table,
      column,
      [...definition.matchAll(/'([^']*)'::text/g)].map((match) => match[1]).sort(),
    ]);
    expect(allowed).toEqual(
      STATE_COLUMNS.map(([table, column, set]) => [table, column, [...set].sort()]),
    );
  });

  it('leaves no column named like a state without its set (or a reason it is open)', async () => {
    const { rows } = await sql<{ table: string; column: string }>`
      select table_name as "table", column_name as "column" from information_schema.columns
      where table_schema = current_schema() and data_type = 'text'
      order by 1, 2`.execute(database.db);
    const stateLike = rows
      .map(({ table, column }) => `${table}.${column}`)
      .filter((name) => STATE_LIKE.test(name.split('.')[1]!) && !(name in OPEN_COLUMNS));
    expect(stateLike).toEqual(STATE_COLUMNS.map(([table, column]) => `${table}.${column}`).sort());
  });

  it('returns every state column typed with its set, not as a string', () => {
    sameType<RunRow['status'], RunStatus>(true);
    sameType<ThreadRow['status'], ThreadStatus>(true);
    sameType<ThreadRow['source'], Source>(true);
    sameType<DeliveryRow['source'], Source>(true);
    sameType<ThreadMessageRow['delivery'], FollowUpDelivery>(true);
    sameType<ThreadMessageRow['kind'], FollowUpKind>(true);
    sameType<SandboxRow['status'], SandboxStatus>(true);
    sameType<RetiredSandboxRow['reason'], RetirementReason>(true);
    sameType<ThreadPlanRow['status'], ThreadPlanStatus>(true);
    sameType<UserTokenRow['kind'], UserTokenKind>(true);
    sameType<LedgerFindingRow['severity'], FindingSeverity>(true);
    sameType<LedgerFindingRow['surfaceThreshold'], FindingSeverity | null>(true);
    sameType<LedgerFindingRow['confidence'], FindingConfidence>(true);
    sameType<LedgerFindingRow['side'], FindingSide>(true);
    sameType<LedgerFindingRow['anchorSide'], FindingSide>(true);
    sameType<LedgerFindingRow['status'], FindingStatus>(true);
    sameType<LedgerFindingRow['surfaceState'], FindingSurfaceState>(true);
    sameType<ReviewStyleRow['mode'], ReviewStyleMode>(true);
    sameType<ReviewLedgerRow['verdictEvent'], ReviewVerdictEvent | null>(true);
    sameType<ReviewLedgerRow['verdictReason'], ReviewVerdictReason | null>(true);
    sameType<BudgetLimitRow['scope'], BudgetScope>(true);
    sameType<EvalRunRow['status'], EvalRunStatus>(true);
    sameType<EvalProposalRow['status'], EvalProposalStatus>(true);
    sameType<EvalProposalRow['kind'], EvalProposalKind>(true);
    sameType<DashboardSessionRow['role'], DashboardRole>(true);
    sameType<DashboardSessionRow['revokedReason'], SessionRevocation | null>(true);
  });

  it('takes every value of each set', async () => {
    for (const status of RUN_STATUSES) {
      const run = await newRun();
      await database.db.updateTable('runs').set({ status }).where('id', '=', run.id).execute();
      expect((await runs.get(run.id))?.status).toBe(status);
    }
    for (const source of SOURCES) {
      expect((await threads.upsert({ id: randomUUID(), source })).source).toBe(source);
    }
  });

  it('refuses a value outside its set, even one that got past the types', async () => {
    const run = await newRun();
    const sandboxes = new SandboxRepository(database.db);
    const sandbox = {
      id: randomUUID(),
      threadId: run.threadId,
      provider: 'local',
      externalId: 'sb',
    };
    await sandboxes.bind(sandbox);
    const plans = new ThreadPlanRepository(database.db);
    const plan = await plans.save({ threadId: run.threadId, title: 'Plan', content: 'Do it.' });
    const message = {
      id: randomUUID(),
      threadId: run.threadId,
      author: 'a',
      text: 't',
      trusted: true,
    };
    const token = {
      id: randomUUID(),
      provider: 'github',
      subject: 'octocat',
      ciphertext: 'c',
      keyId: 'k',
    };
    const findingId = await newFinding(run.threadId);
    const setFinding = (values: Record<string, unknown>) => () =>
      database.db.updateTable('findings').set(values).where('id', '=', findingId).execute();
    const insertEvalRun = (values: Pick<Insertable<EvalRun>, 'status' | 'kind'>) =>
      database.db
        .insertInto('eval_runs')
        .values({
          id: randomUUID(),
          suite: 's',
          config: 'c',
          model: 'm',
          attempts_per_task: 1,
          created_at: new Date(),
          ...values,
        })
        .execute();
    const insertSchedule = (values: Pick<Insertable<EvalSchedule>, 'name' | 'kind' | 'state'>) =>
      database.db
        .insertInto('eval_schedules')
        .values({
          id: randomUUID(),
          source: 'tasks',
          config: 'c',
          model: 'm',
          attempts: 1,
          hour: 3,
          created_by: 'hubot',
          created_at: new Date(),
          updated_at: new Date(),
          ...values,
        })
        .execute();
    const refusals: [column: string, write: () => Promise<unknown>][] = [
      // The model's zod schema refuses these before SQL; the columns refuse what gets past it.
      ['findings.severity', setFinding({ severity: 'blocker' })],
      ['findings.surface_threshold', setFinding({ surface_threshold: 'blocker' })],
      ['findings.confidence', setFinding({ confidence: 'certain' })],
      ['findings.side', setFinding({ side: 'BOTH' })],
      ['findings.anchor_side', setFinding({ anchor_side: 'BOTH' })],
      ['findings.status', setFinding({ status: 'fixed' })],
      ['findings.surface_state', setFinding({ surface_state: 'posted' })],
      [
        'review_ledgers.verdict_event',
        () =>
          new FindingRepository(database.db).moveLedger(run.threadId, {
            verdict: {
              // @ts-expect-error 'MERGE' is not a review event
              event: 'MERGE',
              reason: 'clean_review',
              reviewId: null,
              sha: 'a'.repeat(40),
            },
          }),
      ],
      [
        'review_ledgers.verdict_reason',
        () =>
          new FindingRepository(database.db).moveLedger(run.threadId, {
            verdict: {
              event: 'COMMENT',
              // @ts-expect-error 'felt_like_it' is not a verdict reason
              reason: 'felt_like_it',
              reviewId: null,
              sha: 'a'.repeat(40),
            },
          }),
      ],
      // @ts-expect-error 'succeeded' is not a run status
      ['runs.status', () => runs.markFinished(run.id, { status: 'succeeded' })],
      [
        'threads.status',
        // @ts-expect-error 'done' is not a thread status
        () => threads.setStatus(run.threadId, { status: 'done', activeRunId: null }),
      ],
      // @ts-expect-error 'gitlab' is not a source
      ['threads.source', () => threads.upsert({ id: randomUUID(), source: 'gitlab' })],
      [
        'deliveries.source',
        () =>
          new DeliveryRepository(database.db).record({
            id: randomUUID(),
            // @ts-expect-error 'gitlab' is not a source
            source: 'gitlab',
            deliveryId: randomUUID(),
            threadId: run.threadId,
            event: 'push',
            payload: {},
          }),
      ],
      [
        'thread_messages.delivery',
        // @ts-expect-error 'shout' is not a follow-up delivery
        () => new ThreadMessageRepository(database.db).enqueue({ ...message, delivery: 'shout' }),
      ],
      [
        'thread_messages.kind',
        // @ts-expect-error 'note' is not a follow-up kind
        () => new ThreadMessageRepository(database.db).enqueue({ ...message, kind: 'note' }),
      ],
      // @ts-expect-error 'reminder' is not a notice kind
      ['run_notices.kind', () => new RunNoticeRepository(database.db).record(run.id, 'reminder')],
      [
        'sandboxes.status',
        () =>
          database.db
            .updateTable('sandboxes')
            // @ts-expect-error 'stopped' is not a sandbox status
            .set({ status: 'stopped' })
            .where('id', '=', sandbox.id)
            .execute(),
      ],
      [
        'retired_sandboxes.reason',
        // @ts-expect-error 'lost' is not a retirement reason
        () => sandboxes.retire(sandbox.id, { reason: 'lost', kept: false }),
      ],
      [
        'thread_plans.status',
        () =>
          database.db
            .updateTable('thread_plans')
            // @ts-expect-error 'rejected' is not a plan status
            .set({ status: 'rejected' })
            .where('id', '=', plan.id)
            .execute(),
      ],
      [
        'user_tokens.kind',
        // @ts-expect-error 'id_token' is not a user token kind
        () => new UserTokenRepository(database.db).upsert({ ...token, kind: 'id_token' }),
      ],
      [
        'personal_tokens.scope',
        () =>
          new PersonalTokenRepository(database.db).create({
            id: '0123456789abcdef',
            login: 'octocat',
            githubId: 1,
            name: 'laptop',
            // @ts-expect-error 'admin' is not a personal token scope
            scope: 'admin',
            secretSha256: 'a'.repeat(64),
            expiresAt: new Date(),
          }),
      ],
      [
        'review_styles.mode',
        () =>
          new ReviewStyleRepository(database.db).save({
            repository: 'acme/widgets',
            // @ts-expect-error 'guess' is not a review style mode
            mode: 'guess',
            threadId: run.threadId,
            prompt: 'p',
            summary: 's',
            wordCount: 1,
            model: 'm',
            pullRequests: [],
            commentIds: [],
            reviewers: [],
            counts: { pullRequests: 0, comments: 0, reviewers: 0 },
          }),
      ],
      [
        'budget_limits.scope',
        () =>
          new BudgetLimitRepository(database.db).save({
            // @ts-expect-error 'org' is not a budget scope
            scope: 'org',
            subject: 'acme',
            budgetUsd: 1,
            updatedBy: 'admin',
          }),
      ],
      [
        'bus_deliveries.state',
        () =>
          database.db
            .insertInto('bus_deliveries')
            .values({
              stream: 'S',
              durable: 'd',
              sequence: 1,
              // @ts-expect-error 'acked' is not a delivery state
              state: 'acked',
              delivery_count: 0,
              visible_at: new Date(),
            })
            .execute(),
      ],
      [
        'eval_runs.status',
        // @ts-expect-error 'graded' is not an eval run status
        () => insertEvalRun({ status: 'graded' }),
      ],
      [
        'eval_runs.kind',
        // @ts-expect-error 'lint' is not an eval run kind
        () => insertEvalRun({ kind: 'lint' }),
      ],
      [
        'eval_schedules.kind',
        () =>
          // @ts-expect-error 'weekly' is not an eval run kind
          insertSchedule({ name: 'nightly-kind', kind: 'weekly' }),
      ],
      [
        'eval_schedules.state',
        () =>
          // @ts-expect-error 'weekly' is not a schedule state
          insertSchedule({ name: 'nightly-state', kind: 'harbor', state: 'weekly' }),
      ],
      [
        'eval_proposals.status',
        () =>
          database.db
            .insertInto('eval_proposals')
            .values({
              id: randomUUID(),
              suite: 's',
              config: 'c',
              model: 'm',
              proposed_by: 'hubot',
              // @ts-expect-error 'waived' is not an eval proposal status
              status: 'waived',
              created_at: new Date(),
            })
            .execute(),
      ],
      [
        'eval_proposals.kind',
        () =>
          database.db
            .insertInto('eval_proposals')
            .values({
              id: randomUUID(),
              suite: 's',
              config: 'c',
              model: 'm',
              proposed_by: 'hubot',
              // @ts-expect-error 'middleware' is not an eval proposal kind
              kind: 'middleware',
              created_at: new Date(),
            })
            .execute(),
      ],
      [
        'trigger_refusals.source',
        () =>
          new TriggerRefusalRepository(database.db).record({
            triggerId: randomUUID(),
            threadId: run.threadId,
            // @ts-expect-error 'gitlab' is not a source
            source: 'gitlab',
            author: 'gitlab:someone',
            rule: 'repository_access',
            reason: 'a test',
          }),
      ],
      ...sessionRefusals(),
    ];
    expect(refusals.map(([column]) => column).sort()).toEqual(
      STATE_COLUMNS.map(([table, column]) => `${table}.${column}`).sort(),
    );
    for (const [column, write] of refusals) {
      await expect(write().then(() => `${column} took it`)).rejects.toMatchObject(CHECK_VIOLATION);
    }
    expect(await runs.get(run.id)).toEqual(run);
    expect((await new FindingRepository(database.db).get(findingId))?.severity).toBe('medium');
    expect((await sandboxes.getByThread(run.threadId))?.status).toBe('ready');
  });
});
