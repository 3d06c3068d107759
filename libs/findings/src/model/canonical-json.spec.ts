import { describe, expect, it } from '@jest/globals';

import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: { B: -3, a: 0 }, a: [true, null, 'x\n'] })).toBe(
      '{"a":[true,null,"x\\n"],"b":{"B":-3,"a":0}}',
    );
  });

  it('orders keys by UTF-16 code units: upper case, then lower case, then non-ASCII', () => {
    expect(canonicalJson({ é: 1, a: 2, B: 3, _: 4, '10': 5, '9': 6 })).toBe(
      '{"10":5,"9":6,"B":3,"_":4,"a":2,"é":1}',
    );
  });

  it('keeps the order of arrays', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
  });

  it('writes non-ASCII characters as themselves and escapes control characters and lone surrogates', () => {
    expect(canonicalJson('é — ✓ \u0001 \t "q" \\ \ud800')).toBe(
      '"é — ✓ \\u0001 \\t \\"q\\" \\\\ \\ud800"',
    );
  });

  it('writes negative zero as 0', () => {
    expect(canonicalJson({ z: -0 })).toBe('{"z":0}');
  });

  it.each<[string, number]>([
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['an unsafe integer', 2 ** 53],
  ])('refuses %s', (_name, value) => {
    expect(() => canonicalJson({ v: value })).toThrow(TypeError);
  });

  it('refuses, at run time too, what the type already refuses', () => {
    // @ts-expect-error undefined has no JSON form; a caller past the types still gets a TypeError
    expect(() => canonicalJson({ v: undefined })).toThrow(TypeError);
    // @ts-expect-error a Date is not a CanonicalValue
    expect(() => canonicalJson({ v: new Date(0) })).toThrow(TypeError);
    // @ts-expect-error a bigint is not a CanonicalValue
    expect(() => canonicalJson({ v: BigInt(1) })).toThrow(TypeError);
  });

  it('names where the refused value is', () => {
    expect(() => canonicalJson({ a: [{ b: 0.5 }] })).toThrow('$.a[0].b');
  });
});
