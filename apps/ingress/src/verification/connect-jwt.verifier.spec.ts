import { createHmac } from 'node:crypto';
import {
  canonicalRequest,
  connectJwtIssuer,
  queryStringHash,
  verifyConnectJwt,
  type ConnectRequest,
} from './connect-jwt.verifier.js';
import { refusal } from '../testing/webhook-request.js';

const SECRET = 'tenant-shared-secret';
const NOW = new Date('2026-06-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);

const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

function sign(claims: object, header: object = { alg: 'HS256', typ: 'JWT' }, secret = SECRET) {
  const unsigned = `${part(header)}.${part(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

const request: ConnectRequest = {
  method: 'post',
  path: '/connect/comment-created',
  query: new URLSearchParams('lic=none&cv=1001.0.0'),
};

const claimsFor = (r: ConnectRequest, overrides: object = {}) => ({
  iss: 'client-key-1',
  iat: nowSeconds - 10,
  exp: nowSeconds + 170,
  qsh: queryStringHash(r),
  ...overrides,
});

describe('canonical requests for the query string hash', () => {
  it('follows the documented examples', () => {
    const of = (method: string, path: string, query = '') =>
      canonicalRequest({ method, path, query: new URLSearchParams(query) });

    expect(of('get', '', 'param=foo')).toBe('GET&/&param=foo');
    expect(of('POST', '/user')).toBe('POST&/user&');
    expect(of('GET', '/a/b/', 'jwt=x.y.z&b=2&a=1')).toBe('GET&/a/b&a=1&b=2');
    expect(of('GET', '/x&y', 'k=v w*~')).toBe('GET&/x%26y&k=v%20w%2A~');
    expect(of('GET', '/s', 'r=p 2&z=1&r=P 1&r=p 1')).toBe('GET&/s&r=P%201,p%201,p%202&z=1');
  });

  it('drops the context path the app is served under', () => {
    const r = { method: 'GET', path: '/caravel/connect/x', query: new URLSearchParams() };
    expect(canonicalRequest({ ...r, contextPath: '/caravel' })).toBe('GET&/connect/x&');
  });
});

describe('verifyConnectJwt', () => {
  it('accepts an HS256 token for this request, and names its tenant', () => {
    const token = sign(claimsFor(request));
    expect(connectJwtIssuer(token)).toBe('client-key-1');
    expect(verifyConnectJwt(token, SECRET, request, NOW)).toMatchObject({ iss: 'client-key-1' });
  });

  it('refuses a token issued for another request (wrong qsh)', () => {
    const other = { ...request, query: new URLSearchParams('lic=active&cv=1001.0.0') };
    const token = sign(claimsFor(other));
    expect(refusal(() => verifyConnectJwt(token, SECRET, request, NOW))).toMatchObject({
      code: 'SIGNATURE_INVALID',
      message: expect.stringMatching(/qsh/),
    });
  });

  it('refuses alg none, even with the right claims and an empty signature', () => {
    const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part(claimsFor(request))}.`;
    expect(refusal(() => verifyConnectJwt(unsigned, SECRET, request, NOW))).toMatchObject({
      code: 'SIGNATURE_INVALID',
      message: expect.stringMatching(/HS256/),
    });
  });

  it('refuses an expired token', () => {
    const token = sign(claimsFor(request, { exp: nowSeconds - 1 }));
    expect(refusal(() => verifyConnectJwt(token, SECRET, request, NOW))).toMatchObject({
      code: 'SIGNATURE_INVALID',
      message: expect.stringMatching(/expired/),
    });
  });

  it('refuses a token signed with another secret, or one that is not a JWT', () => {
    const forged = sign(claimsFor(request), undefined, 'someone-else');
    expect(() => verifyConnectJwt(forged, SECRET, request, NOW)).toThrow(
      /signature does not match/,
    );
    expect(() => verifyConnectJwt('not-a-jwt', SECRET, request, NOW)).toThrow(/three parts/);
  });
});
