import { jest } from '@jest/globals';

const crypto = await import('node:crypto');
const timingSafeEqual = jest.fn(crypto.timingSafeEqual);
jest.unstable_mockModule('node:crypto', () => ({ ...crypto, default: crypto, timingSafeEqual }));

const { constantTimeEqual } = await import('./constant-time.js');
const { verifyGithubSignature } = await import('./github-signature.verifier.js');
const { verifySlackSignature } = await import('./slack-signature.verifier.js');
const { verifyLinearSignature } = await import('./linear-signature.verifier.js');
const { verifyJiraRequest } = await import('./jira-secret.verifier.js');

const attempt = (run: () => void) => {
  try {
    run();
  } catch {
    // only the comparison path matters here
  }
};

describe('constant-time comparison', () => {
  beforeEach(() => timingSafeEqual.mockClear());

  it('compares equal-length values with timingSafeEqual and unequal lengths still once', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(timingSafeEqual).toHaveBeenCalledTimes(3);
  });

  it('is the comparison every verifier uses', () => {
    const body = Buffer.from('{}');
    const now = new Date(1_700_000_000_000);
    attempt(() => verifyGithubSignature(body, 'sha256=00', 's'));
    attempt(() =>
      verifySlackSignature(body, { signature: 'v0=00', timestamp: '1700000000' }, 's', now),
    );
    attempt(() => verifyLinearSignature(body, '00', 's'));
    attempt(() =>
      verifyJiraRequest(
        body,
        { secret: 'x', timestamp: undefined, signature: undefined },
        { sharedSecret: 's', hmacSecret: undefined },
        now,
      ),
    );
    expect(timingSafeEqual).toHaveBeenCalledTimes(4);
  });
});
