import type { EvalProposalDecision, EvalRunRepository, EvalRunRow } from '@caravel/db';
import type { GatePolicy, GateVerdict } from '@caravel/evals';
import { AppError } from '@caravel/errors';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Two runs compare only on the same suite (or set): BAD_REQUEST naming both otherwise. */
export function refuseDifferent(
  what: 'suites' | 'sets',
  baseline: string,
  candidate: string,
): void {
  if (baseline !== candidate)
    throw new AppError(
      'BAD_REQUEST',
      `the runs are of different ${what} ('${baseline}' and '${candidate}'): nothing to compare`,
    );
}

/** What the terminal shows of a comparison: its table, then the gate's verdict and why. */
export const verdictText = (table: string, verdict: GateVerdict): string =>
  `${table}\ngate: ${verdict.verdict} — ${verdict.reason}\n`;

/** Writes `comparison.json` (the comparison and its verdict) into `out`, made if missing: its path. */
export async function writeComparisonJson(
  out: string,
  report: { comparison: unknown; verdict: GateVerdict },
): Promise<string> {
  await mkdir(out, { recursive: true });
  const file = join(out, 'comparison.json');
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/**
 * What a proposal keeps of a gate's verdict, whichever gate gave it: the two runs, the policy and
 * the verdict's figures (the status and the numbers are each gate's own).
 */
export function gateDecision(
  runs: { baselineRunId: string; candidateRunId: string },
  policy: GatePolicy,
  verdict: GateVerdict,
): Omit<EvalProposalDecision, 'status' | 'numbers'> {
  return {
    ...runs,
    maxDrop: policy.maxDrop,
    alpha: policy.alpha,
    delta: verdict.delta,
    pValue: verdict.pValue,
    reason: verdict.reason,
  };
}

/** A proposal another gate run decided while this one measured it. */
export const decidedElsewhere = (id: string): AppError =>
  new AppError('CONFLICT', `proposal ${id} was decided by another gate run`);

/**
 * `--against ID`: the recorded run to measure against, when it is a finished run of `kind` on
 * `suite`; NOT_FOUND or BAD_REQUEST otherwise. `wanted` says what was expected, for the error.
 */
export async function againstRun(
  runs: Pick<EvalRunRepository, 'find'>,
  id: string,
  expected: { kind: EvalRunRow['kind']; suite: string; wanted: string },
): Promise<EvalRunRow> {
  const run = await runs.find(id);
  if (!run) throw new AppError('NOT_FOUND', `--against: no eval run ${id}`);
  if (run.kind !== expected.kind || run.suite !== expected.suite || run.status !== 'finished')
    throw new AppError(
      'BAD_REQUEST',
      `--against ${id}: a ${run.status} ${run.kind} run of '${run.suite}', not ${expected.wanted}`,
    );
  return run;
}
