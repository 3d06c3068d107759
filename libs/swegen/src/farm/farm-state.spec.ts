import { describe, expect, it } from '@jest/globals';
import { FarmState } from './farm-state.js';

function clock(start = Date.parse('2026-01-01T00:00:00Z')): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

const ok = (taskId: string, prUrl?: string) =>
  ({ kind: 'success', taskId, ...(prUrl ? { prUrl } : {}) }) as const;
const fail = (category: 'trivial' | 'validation_failed' | 'other', message = 'no') =>
  ({ kind: 'failure', category, message }) as const;

describe('FarmState', () => {
  it('derives its counters from the recorded sets when a PR changes category', () => {
    const state = new FarmState('acme/strings', clock());
    state.markProcessed(5, '2026-01-05T00:00:00Z', fail('validation_failed'));
    state.markProcessed(4, '2026-01-04T00:00:00Z', fail('trivial'));
    expect(state.toJSON()).toMatchObject({ total_processed: 2, successful: 0, failed: 2 });
    state.markPublishFailed(5);
    expect(state.toJSON()).toMatchObject({
      processed_prs: [4],
      publish_failed_prs: [5],
      failed: 1,
      validation_failed_prs: [],
    });
    state.markProcessed(5, '2026-01-05T00:00:00Z', ok('acme__strings-5', 'https://x/pull/1'));
    expect(state.toJSON()).toMatchObject({
      processed_prs: [4, 5],
      publish_failed_prs: [],
      successful: 1,
      failed: 1,
      total_processed: 2,
      successful_prs: { '5': 'acme__strings-5' },
    });
  });

  it('leaves the cursor alone for a pending PR and moves it for a processed one', () => {
    const state = new FarmState('acme/strings', clock());
    state.markProcessed(9, '2026-01-09T00:00:00Z', fail('trivial'));
    state.markPublishFailed(8);
    state.markRateLimited(7);
    expect(state.cursor).toEqual({ prNumber: 9, createdAt: '2026-01-09T00:00:00Z' });
    expect(state.isPending(8) && state.isPending(7)).toBe(true);
  });

  it('reads pending PRs as unprocessed and re-derives counters from a file', () => {
    const state = FarmState.fromJSON({
      repo: 'acme/strings',
      processed_prs: [1, 2, 3],
      successful: 99,
      failed: 99,
      total_processed: 99,
      successful_prs: { '1': 'acme__strings-1' },
      trivial_prs: [2],
      publish_failed_prs: [3],
    });
    expect(state.toJSON()).toMatchObject({
      processed_prs: [1, 2],
      total_processed: 2,
      successful: 1,
      failed: 1,
    });
  });

  it('round-trips through JSON', () => {
    const state = new FarmState('acme/strings', clock());
    state.markProcessed(3, '2026-01-03T00:00:00Z', fail('other', 'boom'));
    state.markProcessed(2, '2026-01-02T00:00:00Z', ok('acme__strings-2', 'u'));
    state.markPublishFailed(1);
    const again = FarmState.fromJSON(JSON.parse(JSON.stringify(state.toJSON())));
    expect(again.toJSON()).toEqual(state.toJSON());
  });

  describe('mergeFrom', () => {
    it('unions both writers and keeps the newer cursor', () => {
      const mine = new FarmState('acme/strings', clock());
      mine.markProcessed(10, '2026-01-10T00:00:00Z', ok('acme__strings-10', 'u10'));
      const theirs = new FarmState('acme/strings', clock());
      theirs.markProcessed(20, '2026-01-20T00:00:00Z', fail('trivial'));
      theirs.markPublishFailed(15);
      mine.mergeFrom(theirs);
      expect(mine.toJSON()).toMatchObject({
        processed_prs: [10, 20],
        publish_failed_prs: [15],
        trivial_prs: [20],
        successful_prs: { '10': 'acme__strings-10' },
        last_pr_number: 20,
        last_created_at: '2026-01-20T00:00:00Z',
        total_processed: 2,
        successful: 1,
        failed: 1,
      });
    });

    it('lets a success on either side clear the other side failure and pending marks', () => {
      const mine = new FarmState('acme/strings', clock());
      mine.markProcessed(5, '2026-01-05T00:00:00Z', ok('acme__strings-5', 'u5'));
      const theirs = new FarmState('acme/strings', clock());
      theirs.markPublishFailed(5);
      theirs.markProcessed(6, '2026-01-06T00:00:00Z', ok('acme__strings-6'));
      const older = new FarmState('acme/strings', clock());
      older.markProcessed(6, '2026-01-06T00:00:00Z', fail('validation_failed'));
      mine.mergeFrom(theirs);
      mine.mergeFrom(older);
      expect(mine.toJSON()).toMatchObject({
        processed_prs: [5, 6],
        publish_failed_prs: [],
        validation_failed_prs: [],
        successful: 2,
        failed: 0,
      });
    });

    it('keeps the receiver verdict on a collision', () => {
      const mine = new FarmState('acme/strings', clock());
      mine.markProcessed(5, '2026-01-05T00:00:00Z', fail('trivial'));
      const theirs = new FarmState('acme/strings', clock());
      theirs.markProcessed(5, '2026-01-05T00:00:00Z', ok('acme__strings-5'));
      mine.mergeFrom(theirs);
      expect(mine.toJSON()).toMatchObject({ trivial_prs: [5], successful_prs: {}, failed: 1 });
    });

    it('refuses another repository', () => {
      const mine = new FarmState('acme/strings');
      expect(() => mine.mergeFrom(new FarmState('acme/other'))).toThrow(/cannot merge/);
    });
  });
});
