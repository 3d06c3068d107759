import { readFileSync } from 'node:fs';
import {
  canonicalRequest,
  queryStringHash,
  splitRequestTarget,
  verifyConnectJwt,
} from './connect-jwt.verifier.js';

interface SignedCase {
  name: string;
  target: string;
  canonical: string;
  jwt: string;
}

interface Interop {
  sharedSecret: string;
  issuer: string;
  expiresAt: number;
  cases: SignedCase[];
  changedSince: (SignedCase & { canonical2014: string })[];
  canonicalOnly: {
    cases: {
      name: string;
      method: string;
      target: string;
      contextPath: string;
      canonical: string;
      qsh?: string;
    }[];
  };
}

const interop = JSON.parse(
  readFileSync(new URL('./fixtures/connect-qsh-interop.json', import.meta.url), 'utf8'),
) as Interop;

/** A clock a minute before the 2014 tokens expired. */
const BEFORE_EXPIRY = new Date((interop.expiresAt - 60) * 1000);

/** The request as the Connect controller sees it: the jwt parameter appended last, as sent. */
function received(target: string, jwt: string) {
  const separator = target.includes('?') ? '&' : '?';
  return { method: 'GET', ...splitRequestTarget(`${target}${separator}jwt=${jwt}`) };
}

describe("Atlassian Connect's signing interoperability cases", () => {
  it('has the cases it was written from', () => {
    expect(interop.cases).toHaveLength(38);
  });

  it.each(interop.cases.map((c) => [c.name, c] as const))(
    '%s: same canonical request, and the token verifies on a clock before it expired',
    (_, signed) => {
      const request = received(signed.target, signed.jwt);
      expect(canonicalRequest(request)).toBe(signed.canonical);
      expect(verifyConnectJwt(signed.jwt, interop.sharedSecret, request, BEFORE_EXPIRY)).toEqual(
        expect.objectContaining({ iss: interop.issuer }),
      );
    },
  );

  it('refuses the same tokens on the real clock: they expired in 2014', () => {
    const [first] = interop.cases;
    if (!first) throw new Error('no cases');
    expect(() =>
      verifyConnectJwt(
        first.jwt,
        interop.sharedSecret,
        received(first.target, first.jwt),
        new Date(),
      ),
    ).toThrow(/expired/);
  });

  it.each(interop.changedSince.map((c) => [c.name, c] as const))(
    '%s: escapes the path & that the 2014 signer left raw, so that token is refused',
    (_, signed) => {
      const request = received(signed.target, signed.jwt);
      expect(canonicalRequest(request)).toBe(signed.canonical);
      expect(canonicalRequest(request)).not.toBe(signed.canonical2014);
      expect(() =>
        verifyConnectJwt(signed.jwt, interop.sharedSecret, request, BEFORE_EXPIRY),
      ).toThrow(/qsh/);
    },
  );
});

describe("atlassian-jwt-js's canonical request cases", () => {
  it.each(interop.canonicalOnly.cases.map((c) => [c.name, c] as const))('%s', (_, example) => {
    const request = {
      method: example.method,
      ...splitRequestTarget(example.target),
      contextPath: example.contextPath,
    };
    expect(canonicalRequest(request)).toBe(example.canonical);
    if (example.qsh) expect(queryStringHash(request)).toBe(example.qsh);
  });
});

describe('splitRequestTarget', () => {
  it('splits at the first ? only: a later ? belongs to the query', () => {
    const { path, query } = splitRequestTarget('/connect/hook?q=a?b&next=c?');
    expect(path).toBe('/connect/hook');
    expect([...query]).toEqual([
      ['q', 'a?b'],
      ['next', 'c?'],
    ]);
  });
});
