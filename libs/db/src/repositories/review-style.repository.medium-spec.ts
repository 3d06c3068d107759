import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import { dismissFinding, markSurfaced, newFindingId, resolveFinding } from '@caravel/findings';
import { aFinding, sha } from '@caravel/findings/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { EvalProposalRepository, type EvalProposalDecision } from './eval-proposal.repository.js';
import { FindingRepository } from './finding.repository.js';
import { ReviewStyleRepository, type NewReviewStyle } from './review-style.repository.js';

const aStyle = (overrides: Partial<NewReviewStyle> = {}): NewReviewStyle => ({
  repository: 'Acme/Widgets',
  mode: 'bootstrap',
  threadId: randomUUID(),
  prompt: 'Review like acme does.',
  summary: 'Short and strict.',
  wordCount: 5,
  model: 'scripted:style.json',
  pullRequests: [3, 7],
  commentIds: ['101', '102'],
  reviewers: ['alice', 'bob'],
  counts: { pullRequests: 2, comments: 2, reviewers: 2 },
  ...overrides,
});

await describeEachDatabase('review styles', openDatabase, (target) => {
  let database: Database;
  let styles: ReviewStyleRepository;

  beforeAll(async () => {
    database = await target.open();
    styles = new ReviewStyleRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('keeps every version with its provenance, the latest in force', async () => {
    expect(await styles.latest('acme/widgets')).toBeNull();
    const first = await styles.save(aStyle());
    const second = await styles.save(
      aStyle({
        mode: 'continual',
        prompt: 'Sharper.',
        counts: { ...aStyle().counts, outcomes: 3 },
      }),
    );
    expect(first).toMatchObject({
      repository: 'acme/widgets',
      version: 1,
      mode: 'bootstrap',
      pullRequests: [3, 7],
      commentIds: ['101', '102'],
      reviewers: ['alice', 'bob'],
      model: 'scripted:style.json',
    });
    expect(second).toMatchObject({ version: 2, mode: 'continual', counts: { outcomes: 3 } });
    expect(await styles.latest('ACME/widgets')).toEqual(second);
    expect((await styles.history('acme/widgets')).map((s) => s.version)).toEqual([1, 2]);
    expect(await styles.repositories()).toContain('acme/widgets');
  });

  it('lists each repository by its version in force, and reads versions newest first or by number', async () => {
    await styles.save(aStyle({ repository: 'Acme/Listed' }));
    await styles.save(aStyle({ repository: 'acme/listed', mode: 'continual', summary: 'v2' }));
    const listed = (await styles.summaries()).find((s) => s.repository === 'acme/listed');
    expect(listed).toMatchObject({ version: 2, mode: 'continual', summary: 'v2', versions: 2 });
    expect((await styles.newestFirst('ACME/listed', 10)).map((s) => s.version)).toEqual([2, 1]);
    expect((await styles.newestFirst('acme/listed', 1)).map((s) => s.version)).toEqual([2]);
    expect(await styles.version('acme/listed', 1)).toMatchObject({ version: 1, editedBy: null });
    expect(await styles.version('acme/listed', 3)).toBeNull();
  });

  it("saves an edit's proposal as the next version only when the gate accepts it, once", async () => {
    const proposals = new EvalProposalRepository(database.db);
    const base = await styles.save(aStyle({ repository: 'acme/edited' }));
    const propose = (prompt: string) =>
      proposals.propose({
        id: randomUUID(),
        suite: 'sample',
        config: 'style-edit',
        model: '',
        settings: {},
        proposedBy: 'alice',
        createdAt: new Date(),
        style: { repository: 'Acme/Edited', prompt, baseVersion: base.version },
      });
    const edit = await propose('Review like acme, and name the test that is missing.');
    expect(edit).toMatchObject({
      kind: 'review-style',
      repository: 'acme/edited',
      baseVersion: 1,
      styleVersion: null,
      status: 'pending',
    });
    // A style's edit is neither an agent configuration's pending proposal nor a suite's current one.
    expect(await proposals.pendingFor('sample', 'style-edit')).toBeNull();
    const decision: Omit<EvalProposalDecision, 'status'> = {
      baselineRunId: randomUUID(),
      candidateRunId: randomUUID(),
      maxDrop: 0.05,
      alpha: 0.05,
      delta: 0,
      pValue: 1,
      reason: 'no drop',
      numbers: {},
    };
    const provenance = {
      threadId: randomUUID(),
      summary: 'Edited by alice.',
      wordCount: 9,
      model: base.model,
      pullRequests: base.pullRequests,
      commentIds: base.commentIds,
      reviewers: base.reviewers,
      counts: base.counts,
      editedBy: 'alice',
    };
    expect(await styles.latest('acme/edited')).toEqual(base);
    const accepted = await proposals.acceptStyle(edit.id, decision, provenance);
    expect(accepted?.style).toMatchObject({
      version: 2,
      mode: 'edited',
      prompt: edit.stylePrompt,
      editedBy: 'alice',
      proposalId: edit.id,
    });
    expect(accepted?.proposal).toMatchObject({ status: 'accepted', styleVersion: 2 });
    expect(await styles.latest('acme/edited')).toEqual(accepted?.style);
    expect(await proposals.acceptStyle(edit.id, decision, provenance)).toBeNull();
    expect((await styles.history('acme/edited')).length).toBe(2);

    const refused = await propose('Approve everything.');
    await proposals.decide(refused.id, { ...decision, status: 'refused' });
    expect(await styles.latest('acme/edited')).toEqual(accepted?.style);
    const listed = await proposals.list({
      kind: 'review-style',
      repository: 'ACME/edited',
      limit: 10,
    });
    expect(listed.map((p) => [p.id, p.status])).toEqual([
      [refused.id, 'refused'],
      [edit.id, 'accepted'],
    ]);
    expect(
      await proposals.list({ kind: 'agent-config', repository: 'acme/edited', limit: 10 }),
    ).toEqual([]);
  });

  it('refuses a review-style proposal without its draft (the CHECK)', async () => {
    await expect(
      database.db
        .insertInto('eval_proposals')
        .values({
          id: randomUUID(),
          suite: 'sample',
          config: 'style-edit',
          model: '',
          proposed_by: 'alice',
          kind: 'review-style',
          repository: 'acme/edited',
          created_at: new Date(),
        })
        .execute(),
    ).rejects.toThrow(/eval_proposals_review_style_check/);
  });

  it('numbers parallel saves one after the other, losing none', async () => {
    const saved = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        styles.save(aStyle({ repository: 'acme/race', summary: `${i}` })),
      ),
    );
    expect(saved.map((s) => s.version).sort()).toEqual([1, 2, 3, 4]);
  });

  it("reads Caravel's closed or answered findings of the repository since a time", async () => {
    const findings = new FindingRepository(database.db);
    const threadId = randomUUID();
    await findings.openLedger({ threadId, owner: 'Acme', repo: 'Outcomes', number: 9 });
    const at = '2026-03-02T10:00:00.000Z';
    const fixed = aFinding({ id: newFindingId() });
    const dismissed = aFinding({ id: newFindingId() });
    const untouched = aFinding({ id: newFindingId() });
    const replied = aFinding({ id: newFindingId() });
    const theirs = aFinding({ id: newFindingId(), author: { kind: 'person', login: 'alice' } });
    for (const f of [fixed, dismissed, untouched, replied, theirs])
      await findings.append(threadId, f);
    await findings.update(fixed.id, (f) =>
      resolveFinding(f, { sha: sha('b'), note: 'Fixed.', at }),
    );
    await findings.update(dismissed.id, (f) =>
      dismissFinding(f, {
        sha: sha('b'),
        note: 'Intended.',
        by: { kind: 'person', login: 'bob' },
        at,
      }),
    );
    await findings.update(theirs.id, (f) =>
      dismissFinding(f, { sha: sha('b'), note: 'x', by: { kind: 'caravel' }, at }),
    );

    await findings.update(replied.id, (f) => ({
      ...f,
      updatedAt: at,
      interactions: [
        {
          kind: 'human_reply',
          commentId: '501',
          inReplyToId: '500',
          author: { kind: 'person', login: 'carol' },
          body: 'Why is this a problem?',
          createdAt: at,
          needsReassessment: true,
        },
      ],
    }));
    const outcomes = await styles.findingOutcomesSince(
      'acme/outcomes',
      new Date('2026-03-02T00:00:00Z'),
    );
    expect(outcomes.map((o) => [o.id, o.status, o.number]).sort()).toEqual(
      [
        [fixed.id, 'resolved', 9],
        [dismissed.id, 'dismissed', 9],
        [replied.id, 'open', 9],
      ].sort(),
    );
    expect(await styles.findingOutcomesSince('acme/outcomes', new Date(at))).toEqual([]);
    // A later change of a closed finding (its thread synced) is not a new outcome.
    await database.db
      .updateTable('findings')
      .set({ updated_at: new Date('2026-03-05T00:00:00Z') })
      .where('id', '=', fixed.id)
      .execute();
    expect(await styles.findingOutcomesSince('acme/outcomes', new Date(at))).toEqual([]);
  });

  it("lists Caravel's findings published as inline comments, newest first (their reactions count)", async () => {
    const findings = new FindingRepository(database.db);
    const threadId = randomUUID();
    await findings.openLedger({ threadId, owner: 'acme', repo: 'Reacted', number: 4 });
    const [older, newer, listedInBody, theirs] = [
      aFinding({ id: newFindingId(), createdAt: '2026-03-01T00:00:00.000Z' }),
      aFinding({ id: newFindingId(), createdAt: '2026-03-02T00:00:00.000Z' }),
      aFinding({ id: newFindingId() }),
      aFinding({ id: newFindingId(), author: { kind: 'person', login: 'alice' } }),
    ];
    const surface = (commentId: string | null) => ({
      reviewId: '900',
      commentId,
      sha: sha('a'),
      at: '2026-03-02T10:00:00.000Z',
    });
    for (const [finding, commentId] of [
      [older, '701'],
      [newer, '702'],
      [listedInBody, null],
      [theirs, '703'],
    ] as const) {
      await findings.append(threadId, finding);
      await findings.update(finding.id, (f) => markSurfaced(f, surface(commentId)));
    }
    const surfaced = await styles.surfacedFindings('Acme/reacted', 10);
    expect(surfaced.map((f) => [f.id, f.commentId, f.number])).toEqual([
      [newer.id, '702', 4],
      [older.id, '701', 4],
    ]);
    expect(surfaced[0]).toMatchObject({ status: 'open', updatedAt: expect.any(Date) });
    expect(surfaced[0]).not.toHaveProperty('surface_comment_id');
    expect(await styles.surfacedFindings('acme/reacted', 1)).toHaveLength(1);
  });
});
