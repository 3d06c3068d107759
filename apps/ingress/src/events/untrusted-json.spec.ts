import { createHash } from 'node:crypto';
import { MAX_JSON_DEPTH, readUntrustedJson, storable, storableText } from './untrusted-json.js';
import { refusal } from '../testing/webhook-request.js';

/** JSON text nesting `depth` arrays, `[[[…]]]`. */
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('storableText', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps real pairs', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\uD800y\uDC00z')).toBe('x\uFFFDy\uFFFDz');
    expect(storableText('end\uD83D')).toBe('end\uFFFD');
    expect(storableText('😀 \uD83D\uDE00 \u0001')).toBe('😀 😀 \u0001');
  });

  it('replaces rather than drops, so nothing joins into a mention', () => {
    expect(storableText('@cara\u0000vel')).toBe('@cara\uFFFDvel');
  });
});

describe('readUntrustedJson', () => {
  const read = (json: string) => readUntrustedJson('github', Buffer.from(json));

  it('keeps the JSON text to store when reading it changed nothing, and not when it did', () => {
    const plain = '{"comment": {"body": "@caravel go \\n"}, "n": 1.50}';
    expect(read(plain).json).toBe(plain);
    expect(read('{"text": "a\\u0000b"}').json).toBeUndefined();
    // Any escape (even one that makes nothing storable) takes the serialised payload.
    expect(read('{"text": "\\u00e9"}')).toEqual(
      expect.not.objectContaining({ json: expect.anything() as unknown }),
    );
  });

  it('makes every string and key storable, at any position, and serialises again', () => {
    const raw = JSON.stringify({
      'k\u0000': 'v\uD800',
      list: ['\u0000', { deep: ['\uDFFF'] }],
      n: 1,
      ok: null,
    });
    const { payload } = read(raw);
    expect(payload).toEqual({
      'k\uFFFD': 'v\uFFFD',
      list: ['\uFFFD', { deep: ['\uFFFD'] }],
      n: 1,
      ok: null,
    });
    expect(JSON.stringify(payload)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });

  it('keeps a __proto__ key as plain data', () => {
    const { payload } = read('{"__proto__":{"polluted":"\\u0000"},"a":1}');
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(JSON.stringify(payload)).toBe('{"__proto__":{"polluted":"\uFFFD"},"a":1}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it(`takes ${MAX_JSON_DEPTH} levels and refuses one more with a 400, at any depth`, () => {
    expect(() => read(nested(MAX_JSON_DEPTH))).not.toThrow();
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 1_000_000]) {
      expect(refusal(() => read(nested(depth)))).toMatchObject({
        code: 'MESSAGE_MALFORMED',
        message: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH} levels`) as unknown,
      });
    }
  });

  it('counts the levels of objects and arrays alike, with or without strings to make storable', () => {
    const objects = (depth: number, leaf: string) =>
      `${'{"k":['.repeat(depth / 2 - 1)}${leaf}${']}'.repeat(depth / 2 - 1)}`;
    for (const leaf of ['{"t":"x"}', '{"t":"\\u0000"}']) {
      expect(() => read(objects(MAX_JSON_DEPTH, leaf))).not.toThrow();
      expect(refusal(() => read(objects(MAX_JSON_DEPTH + 2, leaf)))).toMatchObject({
        code: 'MESSAGE_MALFORMED',
      });
    }
  });

  it('refuses a body that is not JSON with a 400', () => {
    for (const text of ['', '{', 'payload=%7B%7D', '{"a":"\u0000"}']) {
      expect(refusal(() => read(text))).toMatchObject({ code: 'MESSAGE_MALFORMED' });
    }
  });

  it('fingerprints the raw bytes, not the text it parsed', () => {
    const raw = Buffer.from('payload=%7B%22a%22%3A1%7D');
    const body = readUntrustedJson('github', raw, '{"a":1}');
    expect(body).toEqual({
      payload: { a: 1 },
      sha256: createHash('sha256').update(raw).digest('hex'),
      json: '{"a":1}',
    });
  });

  it('takes scalars as they are', () => {
    expect(read('"a\\u0000"').payload).toBe('a\uFFFD');
    expect(read('12').payload).toBe(12);
    expect(read('null').payload).toBeNull();
  });
});

describe('storable', () => {
  it('cleans what a read-back returned, in place', () => {
    const comment = {
      id: '1',
      author: { accountId: 'a', displayName: 'E\u0000ve' },
      markdown: 'x\uD800',
    };
    expect(storable('jira', comment)).toEqual({
      id: '1',
      author: { accountId: 'a', displayName: 'E\uFFFDve' },
      markdown: 'x\uFFFD',
    });
  });
});
