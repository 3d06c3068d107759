import type { EvalProposalRow, EvalRunRow } from '@caravel/db';
import { gateNumbers, type EvalRun, type GatePolicy } from '@caravel/evals';
import { AppError } from '@caravel/errors';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { reportComparison, type CompareReport } from './eval-compare.command.js';
import type { EvalConfig } from './eval-config.js';
import type { EvalRecords } from './eval-records.js';
import { againstRun, decidedElsewhere, gateDecision } from './gate-verdict.js';

/** What the gate is asked: the proposal (a configuration, or a pending proposal's id) on a suite. */
export interface GateRequest {
  /** The suite's name (its folder's). */
  readonly suite: string;
  readonly proposal: { readonly config: EvalConfig } | { readonly id: string };
  /** The run to measure against (default: the current configuration's last run of the suite). */
  readonly against?: string;
  readonly policy: GatePolicy;
  readonly proposedBy: string;
}

/** The gate's outcome: the decided proposal and the comparison it rests on. */
export interface GateOutcome {
  readonly proposal: EvalProposalRow;
  readonly baseline: EvalRunRow;
  readonly report: CompareReport;
}

/** Runs the proposal's configuration on the suite: the recorded run and its output folder. */
export type CandidateRunner = (config: EvalConfig) => Promise<{ run: EvalRun; out: string }>;

const sameSettings = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/**
 * The gate: a proposed configuration is run on the suite and compared with the current
 * configuration's last finished run there (the latest accepted proposal's configuration, else the
 * latest run `eval run` recorded), and refused when it regresses beyond the policy with
 * significance. The proposal is recorded before the run (a pending one of the same configuration
 * is taken over) and keeps the verdict, both runs and the numbers.
 */
export class EvalGate {
  constructor(
    private readonly records: EvalRecords,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async decide(request: GateRequest, runCandidate: CandidateRunner): Promise<GateOutcome> {
    const baseline = await this.baseline(request.suite, request.against);
    const proposal = await this.proposal(request);
    const config = { name: proposal.config, model: proposal.model, env: proposal.settings };
    const { run: candidate, out } = await runCandidate(config);
    if (candidate.runId === baseline.id)
      throw new AppError(
        'CONFLICT',
        `the proposal's run is the baseline run ${baseline.id} itself (the same output folder): pass another --out`,
      );
    const report = await reportComparison(await this.records.evalRun(baseline.id), candidate, {
      policy: request.policy,
      out: join(out, 'gate'),
    });
    const { verdict, comparison } = report;
    const decided = await this.records.proposals.decide(
      proposal.id,
      {
        ...gateDecision(
          { baselineRunId: baseline.id, candidateRunId: candidate.runId },
          request.policy,
          verdict,
        ),
        status: verdict.verdict === 'accept' ? 'accepted' : 'refused',
        numbers: gateNumbers(comparison),
      },
      this.now(),
    );
    if (!decided) throw decidedElsewhere(proposal.id);
    return { proposal: decided, baseline, report };
  }

  /** The run to measure against: `against`, else the current configuration's last finished run. */
  private async baseline(suite: string, against: string | undefined): Promise<EvalRunRow> {
    const { runs, proposals } = this.records;
    if (against !== undefined)
      return againstRun(runs, against, {
        kind: 'harbor',
        suite,
        wanted: `a finished run of suite '${suite}'`,
      });
    const current = await proposals.latestAccepted(suite);
    const run = current
      ? await runs.latestFinished(suite, { config: current.config })
      : await runs.latestFinished(suite, { notProposed: true });
    if (!run)
      throw new AppError(
        'PRECONDITION_FAILED',
        `no finished run of suite '${suite}' to gate against${current ? ` under the current configuration '${current.config}'` : ''}: record one with caravel eval run, or pass --against RUN`,
      );
    return run;
  }

  /** The proposal to decide: the pending one named, or one of this configuration, or a new one. */
  private async proposal(request: GateRequest): Promise<EvalProposalRow> {
    const { proposals } = this.records;
    if ('id' in request.proposal) {
      const found = await proposals.find(request.proposal.id);
      if (!found) throw new AppError('NOT_FOUND', `no proposal ${request.proposal.id}`);
      if (found.status !== 'pending' || found.suite !== request.suite)
        throw new AppError(
          'BAD_REQUEST',
          `proposal ${found.id} is ${found.status} on suite '${found.suite}', not pending on '${request.suite}'`,
        );
      return found;
    }
    const { config } = request.proposal;
    const pending = await proposals.pendingFor(request.suite, config.name);
    if (pending && pending.model === config.model && sameSettings(pending.settings, config.env))
      return pending;
    return proposals.propose({
      id: randomUUID(),
      suite: request.suite,
      config: config.name,
      model: config.model,
      settings: config.env,
      proposedBy: request.proposedBy,
      createdAt: this.now(),
    });
  }
}
