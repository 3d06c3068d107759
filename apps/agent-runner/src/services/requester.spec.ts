import { requesterOf } from './run-executor.service.js';

describe('requesterOf', () => {
  it('names the person who asked as source:id', () => {
    expect(requesterOf({ source: 'slack', requestedBy: { externalId: 'U123' } })).toBe(
      'slack:U123',
    );
    expect(requesterOf({ requestedBy: { externalId: 'cli' } })).toBe('synthetic:cli');
  });

  it('keeps the name a run of follow-ups already gives its first author', () => {
    expect(requesterOf({ requestedBy: { externalId: 'github:octocat' } })).toBe('github:octocat');
    // The thread's source is set too: the author may have written from another source.
    expect(requesterOf({ source: 'slack', requestedBy: { externalId: 'slack:U123' } })).toBe(
      'slack:U123',
    );
    expect(requesterOf({ source: 'github', requestedBy: { externalId: 'slack:U9' } })).toBe(
      'slack:U9',
    );
  });
});
