import type { Delivery } from '../generated/types.js';
import { rowOf } from './row-of.js';

describe('rowOf', () => {
  it('returns every selected column under its camelCase name, values untouched', () => {
    const receivedAt = new Date('2026-12-02T10:00:00Z');
    const payload = { action: 'created' };
    expect(
      rowOf<Delivery>({
        id: 'd1',
        source: 'github',
        delivery_id: 'gh-1',
        semantic_key: null,
        thread_id: 't1',
        event: 'issue_comment',
        received_at: receivedAt,
        payload,
        payload_sha256: 'abc',
        settled_at: null,
      }),
    ).toEqual({
      id: 'd1',
      source: 'github',
      deliveryId: 'gh-1',
      semanticKey: null,
      threadId: 't1',
      event: 'issue_comment',
      receivedAt,
      payload,
      payloadSha256: 'abc',
      settledAt: null,
    });
  });
});
