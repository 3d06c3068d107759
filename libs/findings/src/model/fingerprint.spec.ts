import { describe, expect, it } from '@jest/globals';

import { canonicalJson } from './canonical-json.js';
import {
  fingerprintOf,
  fingerprintPayload,
  newFindingId,
  normalizeDescription,
  type FindingIdentity,
} from './fingerprint.js';
import { FINDING_ID_PATTERN } from './finding.model.js';

// Expected hashes computed outside the code: printf '%s' '<canonical JSON>' | sha256sum
const LINE_FINDING: FindingIdentity = {
  file: 'src/app.ts',
  side: 'RIGHT',
  startLine: 10,
  endLine: 12,
  description: '  Null   pointer\nwhen USER is missing. ',
};
const LINE_FINDING_JSON =
  '{"description":"null pointer when user is missing.","end_line":12,"file":"src/app.ts","side":"RIGHT","start_line":10,"version":1}';
const LINE_FINDING_SHA = 'a7e4f62dc1f96ccc620a9fc75c3bf5345995cea72140ea2daf8e84ae6adadc6f';

const FILE_FINDING: FindingIdentity = {
  file: 'docs/é t.md',
  side: 'LEFT',
  startLine: null,
  endLine: null,
  description: 'Café — naïve "quoted" c:\\tmp',
};
const FILE_FINDING_JSON =
  '{"description":"café — naïve \\"quoted\\" c:\\\\tmp","end_line":null,"file":"docs/é t.md","side":"LEFT","start_line":null,"version":1}';
const FILE_FINDING_SHA = '02880e9d0793f02b215e9f020f2b9a8ded23383aad409d46e8046943bba5023a';

describe('fingerprintOf', () => {
  it('hashes the canonical JSON of the identity (hand-computed vectors)', () => {
    expect(canonicalJson(fingerprintPayload(LINE_FINDING))).toBe(LINE_FINDING_JSON);
    expect(fingerprintOf(LINE_FINDING)).toBe(`v1:${LINE_FINDING_SHA}`);
    expect(canonicalJson(fingerprintPayload(FILE_FINDING))).toBe(FILE_FINDING_JSON);
    expect(fingerprintOf(FILE_FINDING)).toBe(`v1:${FILE_FINDING_SHA}`);
  });

  it('ignores case, line wrapping and Unicode composition of the description', () => {
    const rewrapped = { ...LINE_FINDING, description: 'null POINTER when\n\tuser is missing.' };
    expect(fingerprintOf(rewrapped)).toBe(fingerprintOf(LINE_FINDING));
    const decomposed = {
      ...FILE_FINDING,
      description: 'Cafe\u0301 — nai\u0308ve "quoted" c:\\tmp',
    };
    expect(fingerprintOf(decomposed)).toBe(fingerprintOf(FILE_FINDING));
  });

  it('changes with the side, each line, the file and the words of the description', () => {
    const base = fingerprintOf(LINE_FINDING);
    const variants: FindingIdentity[] = [
      { ...LINE_FINDING, side: 'LEFT' },
      { ...LINE_FINDING, startLine: 11 },
      { ...LINE_FINDING, endLine: 13 },
      { ...LINE_FINDING, file: 'src/App.ts' },
      { ...LINE_FINDING, description: 'Null pointer when USER is present.' },
    ];
    const prints = variants.map(fingerprintOf);
    expect(new Set([base, ...prints]).size).toBe(variants.length + 1);
  });
});

describe('normalizeDescription', () => {
  it('collapses every kind of whitespace, including non-breaking spaces', () => {
    expect(normalizeDescription('A\u00a0\u2003b \r\n c')).toBe('a b c');
  });
});

describe('newFindingId', () => {
  it('is f_ and ten hex digits from five random bytes', () => {
    const id = newFindingId(() => Uint8Array.from([0, 0xab, 0x10, 0xff, 0x7e]));
    expect(id).toBe('f_00ab10ff7e');
    expect(newFindingId()).toMatch(FINDING_ID_PATTERN);
  });
});
