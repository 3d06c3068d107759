import { jest } from '@jest/globals';
import { RefreshingTokenSource, type ScopedToken, type TokenScope } from './token-source.js';

const MINUTE = 60_000;

function setup() {
  let now = 1_000_000;
  let count = 0;
  const mint = jest.fn((scope: TokenScope): Promise<ScopedToken> => {
    count += 1;
    return Promise.resolve({
      token: `t${count}-${scope.repository}`,
      expiresAt: new Date(now + 60 * MINUTE),
    });
  });
  const source = new RefreshingTokenSource({ repository: 'acme/widgets', mint, now: () => now });
  return { source, mint, advance: (ms: number) => (now += ms) };
}

describe('RefreshingTokenSource', () => {
  it('reuses the token until it is within the margin of expiry, then mints a new one', async () => {
    const { source, mint, advance } = setup();
    expect((await source.getToken({ repository: 'acme/widgets' })).token).toBe('t1-acme/widgets');
    advance(54 * MINUTE);
    expect((await source.getToken({ repository: 'Acme/Widgets.git' })).token).toBe(
      't1-acme/widgets',
    );
    advance(2 * MINUTE);
    expect((await source.getToken({ repository: 'acme/widgets' })).token).toBe('t2-acme/widgets');
    expect(mint).toHaveBeenCalledTimes(2);
  });

  it('mints once for many concurrent requests', async () => {
    const { source, mint } = setup();
    const tokens = await Promise.all(
      [1, 2, 3, 4].map(() => source.getToken({ repository: 'acme/widgets' })),
    );
    expect(new Set(tokens.map((t) => t.token)).size).toBe(1);
    expect(mint).toHaveBeenCalledTimes(1);
  });

  it('refuses another repository and never mints for it', async () => {
    const { source, mint } = setup();
    await expect(source.getToken({ repository: 'acme/other' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(mint).not.toHaveBeenCalled();
  });

  it('reports a failed mint as a dependency failure and tries again next time', async () => {
    const mint = jest
      .fn<(scope: TokenScope) => Promise<ScopedToken>>()
      .mockRejectedValueOnce(new Error('github down'))
      .mockResolvedValueOnce({ token: 'ok', expiresAt: new Date(Date.now() + 60 * MINUTE) });
    const source = new RefreshingTokenSource({ repository: 'acme/widgets', mint });
    await expect(source.getToken({ repository: 'acme/widgets' })).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    expect((await source.getToken({ repository: 'acme/widgets' })).token).toBe('ok');
  });
});
