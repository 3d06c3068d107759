import { notSurfaced, type Finding } from '../model/finding.model.js';
import { fingerprintOf } from '../model/fingerprint.js';

/** Commit shas for tests: `sha('a')` is forty a's. */
export const sha = (digit: string): string => digit.repeat(40);

export const T0 = '2026-03-01T10:00:00.000Z';

let counter = 0;

/**
 * An open finding filed by Caravel at `sha('a')` on RIGHT lines 10-12 of src/app.ts; overrides
 * replace fields (the fingerprint and anchor follow `file`/lines/`side`/`description` unless given).
 */
export function aFinding(overrides: Partial<Finding> = {}): Finding {
  counter += 1;
  const file = overrides.file ?? 'src/app.ts';
  const startLine = overrides.startLine === undefined ? 10 : overrides.startLine;
  const endLine = overrides.endLine === undefined ? 12 : overrides.endLine;
  const side = overrides.side ?? 'RIGHT';
  const description =
    overrides.description ?? `The loop reads past the end of the array (${counter}).`;
  const firstSeenSha = overrides.firstSeenSha ?? sha('a');
  return {
    id: `f_${counter.toString(16).padStart(10, '0')}`,
    fingerprint: fingerprintOf({ file, startLine, endLine, side, description }),
    author: { kind: 'caravel' },
    severity: 'medium',
    confidence: 'high',
    category: 'correctness',
    title: `Off-by-one in the loop (${counter})`,
    file,
    startLine,
    endLine,
    side,
    inDiff: true,
    description,
    suggestion: null,
    status: 'open',
    resolution: null,
    firstSeenSha,
    lastConfirmedSha: firstSeenSha,
    anchor: { file, startLine, endLine, side, sha: firstSeenSha },
    diffHunk: null,
    recheck: [],
    surface: notSurfaced(),
    reports: [],
    interactions: [],
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}
