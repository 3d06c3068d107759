import { createHmac } from 'node:crypto';
import { verifyGithubSignature } from './github-signature.verifier.js';
import { verifyJiraRequest, type JiraSecrets } from './jira-secret.verifier.js';
import { checkLinearFreshness, verifyLinearSignature } from './linear-signature.verifier.js';
import { verifySlackSignature } from './slack-signature.verifier.js';

const hmac = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');

function codeOf(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('GitHub X-Hub-Signature-256', () => {
  // V1, github/docs "Validating webhook deliveries".
  const secret = "It's a Secret to Everybody";
  const body = Buffer.from('Hello, World!');
  const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it('accepts the published test vector', () => {
    expect(() => verifyGithubSignature(body, signature, secret)).not.toThrow();
  });

  it('rejects a changed body, a changed secret and a changed signature', () => {
    expect(
      codeOf(() => verifyGithubSignature(Buffer.from('Hello, World?'), signature, secret)),
    ).toBe('SIGNATURE_INVALID');
    expect(codeOf(() => verifyGithubSignature(body, signature, `${secret}.`))).toBe(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(() => verifyGithubSignature(body, signature.replace(/7$/, '8'), secret))).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('rejects the legacy SHA-1 header form and a bare hex digest', () => {
    expect(codeOf(() => verifyGithubSignature(body, 'sha1=01234', secret))).toBe(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(() => verifyGithubSignature(body, signature.slice(7), secret))).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('fails closed when the header is missing or the secret is unset', () => {
    expect(codeOf(() => verifyGithubSignature(body, undefined, secret))).toBe('SIGNATURE_INVALID');
    expect(codeOf(() => verifyGithubSignature(body, signature, undefined))).toBe(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(() => verifyGithubSignature(body, signature, ''))).toBe('SIGNATURE_INVALID');
  });
});

describe('Slack v0 signing', () => {
  // V5, Slack "Verifying requests from Slack" (also python-slack-sdk's test).
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const timestamp = '1531420618';
  const body = Buffer.from(
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  );
  const signature = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
  const at = (seconds: number) => new Date(seconds * 1000);
  const verify = (overrides: {
    body?: Buffer;
    signature?: string | undefined;
    timestamp?: string | undefined;
    secret?: string | undefined;
    now?: Date;
  }) =>
    codeOf(() =>
      verifySlackSignature(
        overrides.body ?? body,
        {
          signature: 'signature' in overrides ? overrides.signature : signature,
          timestamp: 'timestamp' in overrides ? overrides.timestamp : timestamp,
        },
        'secret' in overrides ? overrides.secret : secret,
        overrides.now ?? at(1531420618),
      ),
    );

  it('accepts the published example with the clock frozen at its timestamp', () => {
    expect(verify({})).toBeUndefined();
  });

  it('rejects the same request on the real clock (stale) and with bytes appended', () => {
    expect(verify({ now: new Date() })).toBe('SIGNATURE_INVALID');
    expect(verify({ body: Buffer.concat([body, Buffer.from('------')]) })).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('accepts 299 s of skew and rejects 301 s, in the past and in the future', () => {
    expect(verify({ now: at(1531420618 + 299) })).toBeUndefined();
    expect(verify({ now: at(1531420618 - 299) })).toBeUndefined();
    expect(verify({ now: at(1531420618 + 301) })).toBe('SIGNATURE_INVALID');
    expect(verify({ now: at(1531420618 - 301) })).toBe('SIGNATURE_INVALID');
  });

  it('fails closed on a missing header, a non-numeric timestamp or an unset secret', () => {
    expect(verify({ signature: undefined })).toBe('SIGNATURE_INVALID');
    expect(verify({ timestamp: undefined })).toBe('SIGNATURE_INVALID');
    expect(verify({ timestamp: '1531420618.5' })).toBe('SIGNATURE_INVALID');
    expect(verify({ secret: undefined })).toBe('SIGNATURE_INVALID');
  });
});

describe('Linear-Signature', () => {
  // Derived vector (reliability.md V7 is derived too): the SDK fixture's secret and timestamp.
  const secret = 'SECRET';
  const body = Buffer.from('{"action":"create","type":"Comment","webhookTimestamp":1677611643000}');
  const signature = hmac(secret, body.toString());

  it('accepts a hex HMAC of the raw body and rejects any change', () => {
    expect(() => verifyLinearSignature(body, signature, secret)).not.toThrow();
    expect(() => verifyLinearSignature(body, signature.toUpperCase(), secret)).not.toThrow();
    expect(
      codeOf(() => verifyLinearSignature(Buffer.from(`${body.toString()} `), signature, secret)),
    ).toBe('SIGNATURE_INVALID');
    expect(codeOf(() => verifyLinearSignature(body, `sha256=${signature}`, secret))).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('fails closed when the header is missing or the secret is unset', () => {
    expect(codeOf(() => verifyLinearSignature(body, undefined, secret))).toBe('SIGNATURE_INVALID');
    expect(codeOf(() => verifyLinearSignature(body, signature, undefined))).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('takes freshness from the signed webhookTimestamp: 60 s either way, missing is a 400', () => {
    const ts = 1677611643000;
    expect(() => checkLinearFreshness(ts, new Date(ts + 60_000))).not.toThrow();
    expect(() => checkLinearFreshness(ts, new Date(ts - 60_000))).not.toThrow();
    expect(codeOf(() => checkLinearFreshness(ts, new Date(ts + 10 * 60_000)))).toBe('BAD_REQUEST');
    expect(codeOf(() => checkLinearFreshness(ts, new Date(ts - 61_000)))).toBe('BAD_REQUEST');
    expect(codeOf(() => checkLinearFreshness(undefined, new Date(ts)))).toBe('BAD_REQUEST');
    expect(codeOf(() => checkLinearFreshness(String(ts), new Date(ts)))).toBe('BAD_REQUEST');
  });
});

describe('Jira Automation shared secret', () => {
  const body = Buffer.from('{"deliveryId":"ENG-1-1"}');
  const now = new Date(1_700_000_000_000);
  const ts = '1700000000';
  const signed = `sha256=${hmac('mac', `${ts}.${body.toString()}`)}`;

  it('accepts the configured secret and rejects another or none', () => {
    const secrets = { sharedSecret: 's3cret', hmacSecret: undefined };
    const none = { timestamp: undefined, signature: undefined };
    expect(() =>
      verifyJiraRequest(body, { secret: 's3cret', ...none }, secrets, now),
    ).not.toThrow();
    expect(codeOf(() => verifyJiraRequest(body, { secret: 's3cre', ...none }, secrets, now))).toBe(
      'SIGNATURE_INVALID',
    );
    expect(
      codeOf(() => verifyJiraRequest(body, { secret: undefined, ...none }, secrets, now)),
    ).toBe('SIGNATURE_INVALID');
    expect(
      codeOf(() =>
        verifyJiraRequest(
          body,
          { secret: 's3cret', ...none },
          { sharedSecret: undefined, hmacSecret: undefined },
          now,
        ),
      ),
    ).toBe('SIGNATURE_INVALID');
  });

  it('also requires a fresh HMAC of timestamp.body when an HMAC secret is configured', () => {
    const secrets = { sharedSecret: 's3cret', hmacSecret: 'mac' };
    const ok = { secret: 's3cret', timestamp: ts, signature: signed };
    expect(() => verifyJiraRequest(body, ok, secrets, now)).not.toThrow();
    expect(
      codeOf(() => verifyJiraRequest(body, { ...ok, signature: undefined }, secrets, now)),
    ).toBe('SIGNATURE_INVALID');
    expect(codeOf(() => verifyJiraRequest(Buffer.from('{}'), ok, secrets, now))).toBe(
      'SIGNATURE_INVALID',
    );
    expect(
      codeOf(() => verifyJiraRequest(body, ok, secrets, new Date(now.getTime() + 301_000))),
    ).toBe('SIGNATURE_INVALID');
  });
});

describe('secret rotation: the previous secret is accepted alongside the current one', () => {
  const body = Buffer.from('{"action":"created"}');
  const now = new Date(1_700_000_000_000);
  const ts = '1700000000';

  it('GitHub: a delivery signed with the previous secret passes only while it is configured', () => {
    const signedWith = (key: string) => `sha256=${hmac(key, body.toString())}`;
    expect(codeOf(() => verifyGithubSignature(body, signedWith('new'), 'new', 'old'))).toBe(
      undefined,
    );
    expect(codeOf(() => verifyGithubSignature(body, signedWith('old'), 'new', 'old'))).toBe(
      undefined,
    );
    expect(codeOf(() => verifyGithubSignature(body, signedWith('old'), 'new'))).toBe(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(() => verifyGithubSignature(body, signedWith('other'), 'new', 'old'))).toBe(
      'SIGNATURE_INVALID',
    );
    // The previous secret alone never opens a route whose secret is unset.
    expect(codeOf(() => verifyGithubSignature(body, signedWith('old'), undefined, 'old'))).toBe(
      'SIGNATURE_INVALID',
    );
  });

  it('Slack and Linear: the previous secret passes while configured, nothing else does', () => {
    const slackWith = (key: string) => `v0=${hmac(key, `v0:${ts}:${body.toString()}`)}`;
    const slack = (signature: string, previous?: string) =>
      codeOf(() => verifySlackSignature(body, { signature, timestamp: ts }, 'new', now, previous));
    expect(slack(slackWith('old'), 'old')).toBeUndefined();
    expect(slack(slackWith('new'), 'old')).toBeUndefined();
    expect(slack(slackWith('old'))).toBe('SIGNATURE_INVALID');
    expect(slack(slackWith('other'), 'old')).toBe('SIGNATURE_INVALID');

    const linear = (key: string, previous?: string) =>
      codeOf(() => verifyLinearSignature(body, hmac(key, body.toString()), 'new', previous));
    expect(linear('old', 'old')).toBeUndefined();
    expect(linear('old')).toBe('SIGNATURE_INVALID');
    expect(linear('other', 'old')).toBe('SIGNATURE_INVALID');
  });

  it('Jira: the previous shared secret and the previous HMAC secret each pass while configured', () => {
    const signedWith = (key: string) => `sha256=${hmac(key, `${ts}.${body.toString()}`)}`;
    const secrets = {
      sharedSecret: 'new',
      hmacSecret: 'mac-new',
      previousSharedSecret: 'old',
      previousHmacSecret: 'mac-old',
    };
    const jira = (secret: string, mac: string, configured: JiraSecrets = secrets) =>
      codeOf(() =>
        verifyJiraRequest(
          body,
          { secret, timestamp: ts, signature: signedWith(mac) },
          configured,
          now,
        ),
      );
    expect(jira('old', 'mac-old')).toBeUndefined();
    expect(jira('new', 'mac-old')).toBeUndefined();
    expect(jira('other', 'mac-new')).toBe('SIGNATURE_INVALID');
    expect(jira('new', 'mac-other')).toBe('SIGNATURE_INVALID');
    expect(jira('old', 'mac-new', { sharedSecret: 'new', hmacSecret: 'mac-new' })).toBe(
      'SIGNATURE_INVALID',
    );
  });
});
