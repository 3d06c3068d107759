import type { ExpectedDefect } from './review-set.js';

/** Severities, lowest first (the reviewer's). */
export const REVIEW_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type ReviewSeverity = (typeof REVIEW_SEVERITIES)[number];

/** One finding a reviewer filed, as scored: where, and how severe. */
export interface ScoredFinding {
  id: string;
  file: string;
  /** Null: a file-level finding. */
  startLine: number | null;
  endLine: number | null;
  side: 'RIGHT' | 'LEFT';
  severity: ReviewSeverity;
}

/** How findings are matched to defects. */
export interface MatchOptions {
  /** Lines a finding may be off by and still overlap the defect (default 0). */
  tolerance?: number;
  /** Findings under this severity are not scored (default `low`: every finding). */
  minSeverity?: ReviewSeverity;
  /**
   * The judge's say on a pair whose places overlap (a pair it refuses is no match); absent, the
   * place decides alone.
   */
  accept?: (defect: number, findingId: string) => boolean;
}

/** A defect (its index in the case) matched to a finding (its id). */
export interface DefectMatch {
  defect: number;
  finding: string;
}

/** Precision, recall and F1 of counts; null where the ratio has no denominator. */
export interface ReviewScores {
  expected: number;
  found: number;
  matched: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

/** One case scored: the pairs, what was missed, what was wrong, what was not scored. */
export interface CaseScore extends ReviewScores {
  matches: DefectMatch[];
  /** Defects no finding matched (indexes). */
  missed: number[];
  /** Scored findings that matched no defect (ids). */
  falsePositives: string[];
  /** Findings under the minimum severity (ids). */
  ignored: string[];
}

const normalPath = (file: string) => file.replace(/^(\.\/)+/, '');

const rangeOf = (start: number, end: number | null | undefined) => ({
  start,
  end: end ?? start,
});

/**
 * Whether a finding is where a defect is: the same file and side, and line ranges that overlap
 * once the finding's is widened by `tolerance` on each side. A defect with no lines (the file as
 * a whole) is matched by any finding in its file; a file-level finding only by such a defect.
 */
export function placeMatches(
  defect: ExpectedDefect,
  finding: ScoredFinding,
  tolerance = 0,
): boolean {
  if (normalPath(defect.file) !== normalPath(finding.file)) return false;
  if (defect.startLine === undefined) return true;
  if (finding.startLine === null) return false;
  if (defect.side !== finding.side) return false;
  const d = rangeOf(defect.startLine, defect.endLine);
  const f = rangeOf(finding.startLine, finding.endLine);
  return f.start - tolerance <= d.end && d.start <= f.end + tolerance;
}

/** Findings at or above `minSeverity`. */
export function scoredFindings(
  findings: readonly ScoredFinding[],
  minSeverity: ReviewSeverity = 'low',
): ScoredFinding[] {
  const floor = REVIEW_SEVERITIES.indexOf(minSeverity);
  return findings.filter((f) => REVIEW_SEVERITIES.indexOf(f.severity) >= floor);
}

/**
 * The pairs whose places match (defect index, finding id), in defect then finding order: what a
 * judge is asked about.
 */
export function candidatePairs(
  defects: readonly ExpectedDefect[],
  findings: readonly ScoredFinding[],
  options: Pick<MatchOptions, 'tolerance' | 'minSeverity'> = {},
): DefectMatch[] {
  const scored = scoredFindings(findings, options.minSeverity);
  return defects.flatMap((defect, i) =>
    scored
      .filter((f) => placeMatches(defect, f, options.tolerance ?? 0))
      .map((f) => ({ defect: i, finding: f.id })),
  );
}

/** Precision, recall and F1 of matched pairs among `found` findings and `expected` defects. */
export function scoresOf(expected: number, found: number, matched: number): ReviewScores {
  const precision = found === 0 ? null : matched / found;
  const recall = expected === 0 ? null : matched / expected;
  const f1 =
    precision === null || recall === null
      ? null
      : precision + recall === 0
        ? 0
        : (2 * precision * recall) / (precision + recall);
  return { expected, found, matched, precision, recall, f1 };
}

/**
 * Scores one case: each defect is matched to at most one finding and each finding to at most
 * one defect, as many pairs as the candidates allow (a maximum bipartite matching: a finding
 * overlapping two defects goes where it leaves the other defect a match). A second finding on a
 * matched defect is a false positive: a reviewer that repeats itself is less precise.
 */
export function scoreCase(
  defects: readonly ExpectedDefect[],
  findings: readonly ScoredFinding[],
  options: MatchOptions = {},
): CaseScore {
  const scored = scoredFindings(findings, options.minSeverity);
  const edges = candidatePairs(defects, scored, { tolerance: options.tolerance ?? 0 }).filter(
    (pair) => options.accept?.(pair.defect, pair.finding) ?? true,
  );
  const byDefect = defects.map((_, i) => edges.filter((e) => e.defect === i).map((e) => e.finding));
  const holder = new Map<string, number>();
  const augment = (defect: number, visited: Set<string>): boolean => {
    for (const finding of byDefect[defect] ?? []) {
      if (visited.has(finding)) continue;
      visited.add(finding);
      const held = holder.get(finding);
      if (held === undefined || augment(held, visited)) {
        holder.set(finding, defect);
        return true;
      }
    }
    return false;
  };
  defects.forEach((_, i) => augment(i, new Set()));
  const matches = [...holder.entries()]
    .map(([finding, defect]) => ({ defect, finding }))
    .sort((a, b) => a.defect - b.defect);
  const matchedDefects = new Set(matches.map((m) => m.defect));
  const scoredIds = new Set(scored.map((f) => f.id));
  return {
    ...scoresOf(defects.length, scored.length, matches.length),
    matches,
    missed: defects.flatMap((_, i) => (matchedDefects.has(i) ? [] : [i])),
    falsePositives: scored.filter((f) => !holder.has(f.id)).map((f) => f.id),
    ignored: findings.filter((f) => !scoredIds.has(f.id)).map((f) => f.id),
  };
}

/** The scores over several cases, micro-averaged (pairs, findings and defects summed). */
export function totalScores(
  cases: readonly Pick<ReviewScores, 'expected' | 'found' | 'matched'>[],
): ReviewScores {
  type Counts = (typeof cases)[number];
  const sum = (pick: (s: Counts) => number) => cases.reduce((n, s) => n + pick(s), 0);
  return scoresOf(
    sum((s) => s.expected),
    sum((s) => s.found),
    sum((s) => s.matched),
  );
}
