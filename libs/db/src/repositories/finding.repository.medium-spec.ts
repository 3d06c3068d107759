import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import {
  fingerprintOf,
  newFindingId,
  resolveFinding,
  type Finding,
  type Interaction,
} from '@caravel/findings';
import { aFinding, sha } from '@caravel/findings/testing';
import { sql } from 'kysely';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { FindingRepository, type LedgerKey } from './finding.repository.js';

const AT = '2026-03-02T09:00:00.000Z';

let filed = 0;

/** A finding with a random id (aFinding numbers them per process), each filed a second later. */
const finding = (overrides: Partial<Finding> = {}): Finding => {
  filed += 1;
  const at = new Date(Date.parse('2026-03-01T10:00:00.000Z') + filed * 1000).toISOString();
  return aFinding({ id: newFindingId(), createdAt: at, updatedAt: at, ...overrides });
};

const reply = (commentId: string): Interaction => ({
  kind: 'human_reply',
  commentId,
  inReplyToId: '100',
  author: { kind: 'person', login: 'alice' },
  body: `reply ${commentId}`,
  createdAt: AT,
  needsReassessment: true,
});

await describeEachDatabase('finding repository', openDatabase, (target) => {
  let database: Database;
  let findings: FindingRepository;

  beforeAll(async () => {
    database = await target.open();
    findings = new FindingRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const newLedger = async (): Promise<LedgerKey> => {
    const key = { threadId: randomUUID(), owner: 'acme', repo: 'widgets', number: 0 };
    key.number = Math.floor(Math.random() * 1e9);
    await findings.openLedger(key);
    return key;
  };

  /** The row's transaction id: it changes on every write, even of equal values. */
  const xmin = async (id: string): Promise<string> => {
    const { rows } = await sql<{ xmin: string }>`
      select xmin::text as xmin from findings where id = ${id}`.execute(database.db);
    return rows[0]!.xmin;
  };

  it('opens a ledger once and records heads only when one changes', async () => {
    const key = await newLedger();
    const again = await findings.openLedger(key);
    expect(again).toMatchObject({ ...key, headSha: null, lastReviewedSha: null });

    const moved = await findings.moveLedger(key.threadId, { headSha: sha('b') });
    expect(moved).toMatchObject({ headSha: sha('b'), lastReviewedSha: null });
    const reviewed = await findings.moveLedger(key.threadId, {
      lastReviewedSha: sha('b'),
      checkRunId: '42',
    });
    expect(reviewed).toMatchObject({
      headSha: sha('b'),
      lastReviewedSha: sha('b'),
      checkRunId: '42',
    });

    const same = await findings.moveLedger(
      key.threadId,
      { headSha: sha('b') },
      new Date('2030-01-01T00:00:00Z'),
    );
    expect(same.updatedAt).toEqual(reviewed.updatedAt);
    await expect(findings.moveLedger(randomUUID(), { headSha: sha('c') })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("keeps the latest publish's verdict with the heads, written once per change", async () => {
    const key = await newLedger();
    const first = new Date('2030-01-01T00:00:00Z');
    const posted = {
      event: 'REQUEST_CHANGES' as const,
      reason: 'changes_requested' as const,
      reviewId: '555',
      sha: sha('b'),
    };
    const published = await findings.moveLedger(
      key.threadId,
      { lastReviewedSha: sha('b'), verdict: posted },
      first,
    );
    expect(published).toMatchObject({
      lastReviewedSha: sha('b'),
      verdictEvent: 'REQUEST_CHANGES',
      verdictReason: 'changes_requested',
      verdictReviewId: '555',
      verdictSha: sha('b'),
      verdictAt: first,
    });
    // A retried publish of the same verdict writes nothing; one that posted nothing replaces it.
    const again = await findings.moveLedger(
      key.threadId,
      { verdict: posted },
      new Date('2031-01-01T00:00:00Z'),
    );
    expect(again.verdictAt).toEqual(first);
    const empty = {
      ...posted,
      event: 'COMMENT' as const,
      reason: 'verdict_not_requested' as const,
    };
    const later = await findings.moveLedger(
      key.threadId,
      { verdict: { ...empty, reviewId: null, sha: sha('c') } },
      new Date('2032-01-01T00:00:00Z'),
    );
    expect(later).toMatchObject({
      verdictEvent: 'COMMENT',
      verdictReviewId: null,
      verdictSha: sha('c'),
    });
    expect(later.verdictAt).toEqual(new Date('2032-01-01T00:00:00Z'));
  });

  it('records why a head was not reviewed, once, and lets it go when a review starts', async () => {
    const key = await newLedger();
    const at = new Date('2030-01-01T00:00:00Z');
    const skip = { reason: 'no reviewer model is configured', sha: sha('b') };
    const noted = await findings.noteSkip(key.threadId, skip, at);
    expect(noted).toMatchObject({ skipReason: skip.reason, skippedSha: sha('b'), skippedAt: at });
    const again = await findings.noteSkip(key.threadId, skip, new Date('2031-01-01T00:00:00Z'));
    expect(again.updatedAt).toEqual(noted.updatedAt);
    const later = await findings.noteSkip(key.threadId, { ...skip, sha: sha('c') });
    expect(later).toMatchObject({ skipReason: skip.reason, skippedSha: sha('c') });
    const reviewing = await findings.noteSkip(key.threadId, null);
    expect(reviewing).toMatchObject({ skipReason: null, skippedSha: null, skippedAt: null });
    expect(await findings.getLedger(key.threadId)).toMatchObject({ skipReason: null });
    await expect(findings.noteSkip(randomUUID(), skip)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('stores every field of a finding and reads it back as it was', async () => {
    const { threadId } = await newLedger();
    const full = finding({
      author: { kind: 'bot', login: 'copilot[bot]', bot: 'copilot' },
      severity: 'critical',
      confidence: 'low',
      suggestion: 'if (user) {\n  greet(user);\n}',
      status: 'dismissed',
      resolution: {
        kind: 'dismissed',
        sha: sha('c'),
        note: 'Intended.',
        by: { kind: 'person', login: 'alice' },
        at: AT,
      },
      lastConfirmedSha: sha('c'),
      anchor: { file: 'src/moved.ts', startLine: 20, endLine: 22, side: 'LEFT', sha: sha('c') },
      inDiff: false,
      diffHunk: '@@ -1,2 +1,3 @@',
      recheck: ['lines_changed', 'reply'],
      surface: {
        state: 'resolved',
        reviewId: '77',
        commentId: '100',
        threadId: 'PRRT_kwDOabc',
        severityThresholdAtPublish: 'high',
        surfacedAtSha: sha('a'),
        resolutionCommentId: '101',
        lastSyncAt: AT,
        lastError: null,
      },
      reports: [
        {
          author: { kind: 'person', login: 'bob' },
          commentId: '90',
          reviewId: null,
          threadId: null,
          url: 'https://github.com/acme/widgets/pull/1#discussion_r90',
          sha: null,
          at: AT,
        },
      ],
      interactions: [reply('102')],
    });
    const fileLevel = finding({ startLine: null, endLine: null });

    expect(await findings.append(threadId, full)).toEqual({ finding: full, appended: true });
    await findings.append(threadId, fileLevel);

    expect(await findings.get(full.id)).toEqual(full);
    expect(await findings.list(threadId)).toEqual([full, fileLevel]);
    expect(await findings.list(threadId, { status: 'open' })).toEqual([fileLevel]);
    expect(await findings.get(newFindingId())).toBeNull();
  });

  it('appends a repeat of an open finding once, and again once the first is closed', async () => {
    const { threadId } = await newLedger();
    const first = finding();
    const repeat = { ...finding(), fingerprint: first.fingerprint };

    await findings.append(threadId, first);
    expect(await findings.append(threadId, repeat)).toEqual({ finding: first, appended: false });
    expect(await findings.append(threadId, first)).toEqual({ finding: first, appended: false });
    expect((await findings.list(threadId)).map((f) => f.id)).toEqual([first.id]);

    await findings.update(first.id, (f) =>
      resolveFinding(f, { sha: sha('b'), note: 'Fixed.', by: { kind: 'caravel' }, at: AT }),
    );
    expect(await findings.append(threadId, repeat)).toEqual({ finding: repeat, appended: true });
    expect((await findings.list(threadId)).map((f) => f.id)).toEqual([first.id, repeat.id]);
  });

  it('keeps every finding of parallel writers and one of each repeat', async () => {
    const { threadId } = await newLedger();
    const distinct = Array.from({ length: 12 }, () => finding());
    const description = 'The same problem, filed by eight writers at once.';
    const same = fingerprintOf({
      file: 'src/app.ts',
      startLine: 10,
      endLine: 12,
      side: 'RIGHT',
      description,
    });
    const repeats = Array.from({ length: 8 }, () => finding({ description, fingerprint: same }));

    const outcomes = await Promise.all(
      [...distinct, ...repeats].map((f) => findings.append(threadId, f)),
    );

    expect(outcomes.filter((o) => o.appended)).toHaveLength(13);
    const stored = await findings.list(threadId);
    expect(stored).toHaveLength(13);
    expect(stored.filter((f) => f.fingerprint === same)).toHaveLength(1);
    const kept = outcomes.slice(12).filter((o) => o.appended);
    expect(kept).toHaveLength(1);
    expect(new Set(outcomes.slice(12).map((o) => o.finding.id))).toEqual(
      new Set([kept[0]!.finding.id]),
    );
    expect(new Set(stored.map((f) => f.id))).toEqual(
      new Set([...distinct.map((f) => f.id), kept[0]!.finding.id]),
    );
  });

  // PGlite has one session, which a transaction owns until it ends: nothing can interleave there.
  const onPostgres = target.label === 'postgres' ? it : it.skip;

  onPostgres('makes a second filing of a finding wait until the first one commits', async () => {
    const { threadId } = await newLedger();
    const first = finding();
    const repeat = { ...finding(), fingerprint: first.fingerprint };
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let filed!: () => void;
    const firstFiled = new Promise<void>((resolve) => (filed = resolve));
    const firstWrite = database.transaction(async (trx) => {
      const outcome = await new FindingRepository(trx).append(threadId, first);
      filed();
      await released;
      return outcome;
    });
    await firstFiled;

    let settled = false;
    const secondWrite = findings.append(threadId, repeat).finally(() => (settled = true));
    while (!settled && (await lockWaiters()) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(settled).toBe(false);
    release();

    expect(await firstWrite).toEqual({ finding: first, appended: true });
    expect(await secondWrite).toEqual({ finding: first, appended: false });
  });

  /** Sessions of this database waiting for a lock another one holds. */
  const lockWaiters = async (): Promise<number> => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and datname = current_database()`.execute(database.db);
    return rows[0]!.n;
  };

  it('applies parallel updates of one finding one after another, losing none', async () => {
    const { threadId } = await newLedger();
    const { finding: stored } = await findings.append(threadId, finding());

    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        findings.update(stored.id, (current) => ({
          ...current,
          interactions: [...current.interactions, reply(String(200 + i))],
        })),
      ),
    );

    const after = await findings.get(stored.id);
    expect(after?.interactions.map((r) => r.commentId).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => String(200 + i)),
    );
  });

  it('writes nothing when a change returns what is stored, or refuses', async () => {
    const { threadId } = await newLedger();
    const { finding: stored } = await findings.append(threadId, finding());
    const before = await xmin(stored.id);

    expect(await findings.update(stored.id, (f) => f)).toEqual({ finding: stored, changed: false });
    expect(await findings.update(stored.id, (f) => ({ ...f }))).toMatchObject({ changed: false });
    await expect(
      findings.update(stored.id, () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await expect(
      findings.update(stored.id, (f) => ({ ...f, id: newFindingId() })),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await xmin(stored.id)).toBe(before);

    const { changed } = await findings.update(stored.id, (f) => ({ ...f, severity: 'high' }));
    expect(changed).toBe(true);
    expect(await xmin(stored.id)).not.toBe(before);
    expect((await findings.get(stored.id))?.severity).toBe('high');
    await expect(findings.update(newFindingId(), (f) => f)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('updates a whole ledger: writes what changed, adds what is new, leaves the rest', async () => {
    const { threadId } = await newLedger();
    const [kept, changed, untouched] = [finding(), finding(), finding()];
    for (const f of [kept, changed, untouched]) await findings.append(threadId, f);
    const keptVersion = await xmin(kept.id);
    const added = finding({ author: { kind: 'person', login: 'bob' }, recheck: ['ingested'] });

    const outcome = await findings.updateAll(threadId, (current) => [
      current.find((f) => f.id === kept.id)!,
      { ...current.find((f) => f.id === changed.id)!, inDiff: false },
      added,
    ]);

    expect(outcome.updated).toEqual([changed.id]);
    expect(outcome.added).toEqual([added.id]);
    expect(outcome.findings.map((f) => f.id)).toEqual([
      kept.id,
      changed.id,
      untouched.id,
      added.id,
    ]);
    expect(await xmin(kept.id)).toBe(keptVersion);
    expect((await findings.get(changed.id))?.inDiff).toBe(false);
    expect(await findings.list(threadId)).toEqual(outcome.findings);
  });

  it('refuses to append to a pull request without a ledger', async () => {
    await expect(findings.append(randomUUID(), finding())).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
