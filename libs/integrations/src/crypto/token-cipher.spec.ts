import { randomBytes } from 'node:crypto';
import { gcmOpen, gcmSeal, parseKeyring, TokenCipher } from './token-cipher.js';

/** What `run` throws (undefined when it returns). */
function caught(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

const hex = (value: string): Buffer => Buffer.from(value, 'hex');
const ZERO_KEY = Buffer.alloc(32);
const K15 = hex('feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308');
const IV15 = hex('cafebabefacedbaddecaf888');
const P15 = hex(
  'd9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255',
);
const C15 =
  '522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad';

const key = (id: string): { id: string; key: Buffer } => ({ id, key: randomBytes(32) });

describe('AES-256-GCM primitive (McGrew-Viega test cases)', () => {
  it.each([
    [
      'TC13',
      ZERO_KEY,
      Buffer.alloc(12),
      Buffer.alloc(0),
      Buffer.alloc(0),
      '530f8afbc74536b9a963b4f1c4cb738b',
    ],
    [
      'TC14',
      ZERO_KEY,
      Buffer.alloc(12),
      Buffer.alloc(16),
      Buffer.alloc(0),
      'cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919',
    ],
    ['TC15', K15, IV15, P15, Buffer.alloc(0), `${C15}b094dac5d93471bdec1a502270e3cc6c`],
    [
      'TC16',
      K15,
      IV15,
      P15.subarray(0, 60),
      hex('feedfacedeadbeeffeedfacedeadbeefabaddad2'),
      `${C15.slice(0, 120)}76fc6ece0f4e1768cddf8853bb2d551b`,
    ],
  ])(
    '%s seals to the published ciphertext and tag, and opens back',
    (_name, k, iv, p, a, expected) => {
      const sealed = gcmSeal(k, iv, p, a);
      expect(sealed.subarray(12).toString('hex')).toBe(expected);
      expect(gcmOpen(k, sealed, a).equals(p)).toBe(true);
    },
  );

  it('rejects any flipped bit of IV, ciphertext, tag or AAD', () => {
    const aad = Buffer.from('ctx');
    const sealed = gcmSeal(K15, IV15, P15, aad);
    for (const index of [0, 11, 12, 40, sealed.length - 1]) {
      const forged = Buffer.from(sealed);
      forged[index] = (forged[index] ?? 0) ^ 0x01;
      expect(() => gcmOpen(K15, forged, aad)).toThrow();
    }
    expect(() => gcmOpen(K15, sealed, Buffer.from('ctY'))).toThrow();
  });
});

describe('TokenCipher', () => {
  it('seals under the current key with its id, and opens only with the same context', () => {
    const cipher = new TokenCipher([key('k2'), key('k1')]);
    const sealed = cipher.encrypt('gho_secret', 'github|octocat|access');

    expect(sealed.keyId).toBe('k2');
    expect(sealed.ciphertext).toMatch(/^v1\.k2\.[A-Za-z0-9_-]+$/);
    expect(sealed.ciphertext).not.toContain('gho_secret');
    expect(cipher.decrypt(sealed.ciphertext, 'github|octocat|access')).toBe('gho_secret');
    expect(caught(() => cipher.decrypt(sealed.ciphertext, 'github|mallory|access'))).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
  });

  it('opens what a previous key sealed after a new key becomes current', () => {
    const k1 = key('k1');
    const old = new TokenCipher([k1]).encrypt('t', 'c');
    const rotated = new TokenCipher([key('k2'), k1]);

    expect(rotated.decrypt(old.ciphertext, 'c')).toBe('t');
    expect(caught(() => rotated.currentOnly().decrypt(old.ciphertext, 'c'))).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('k1'),
    });
  });

  it('uses a fresh IV for every encryption', () => {
    const cipher = new TokenCipher([key('k1')]);
    expect(cipher.encrypt('same', 'c').ciphertext).not.toBe(cipher.encrypt('same', 'c').ciphertext);
  });

  it('refuses ciphertexts in another format', () => {
    const cipher = new TokenCipher([key('k1')]);
    expect(caught(() => cipher.decrypt('gAAAAAB-fernet', 'c'))).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
  });
});

describe('parseKeyring', () => {
  const b64 = randomBytes(32).toString('base64');

  it('reads id:base64 entries, current first, separated by commas or newlines', () => {
    const keys = parseKeyring(`k2:${b64},\nk1:${randomBytes(32).toString('base64')}`);
    expect(keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect(keys[0]?.key.toString('base64')).toBe(b64);
  });

  it.each([
    ['', 'is empty'],
    ['k1', 'entry 1 must be'],
    [`k1:${randomBytes(16).toString('base64')}`, 'entry 1 must be'],
    [`bad id:${b64}`, 'entry 1 must be'],
    [`k1:${b64},k1:${b64}`, 'same key id twice'],
  ])('rejects %j with a coded error that shows no key material', (spec, message) => {
    const error = (() => {
      try {
        parseKeyring(spec);
        return undefined;
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(message),
    });
    expect(error?.message).not.toContain(b64);
  });
});
