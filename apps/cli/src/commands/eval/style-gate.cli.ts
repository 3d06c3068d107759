import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { join, resolve } from 'node:path';
import { UsageError } from '../cli-args.js';
import { reviewerModelOf } from '../review-eval/review-eval.cli.js';
import {
  gatePolicyOf,
  gateRecords,
  refuseArguments,
  refuseOptions,
  stopOnSignal,
  type EvalIo,
  type Values,
} from './eval-options.js';

const SANDBOXES = ['bwrap', 'local'] as const;

/**
 * `caravel eval gate-style --proposal ID --set SET [--model REF] [--against RUN] [--sandbox
 * bwrap|local] [--concurrency N] [--out DIR] [--max-drop P] [--alpha A]`: measures a review
 * style's edit (proposed on the dashboard) with the reviewer eval against the current style and
 * keeps the verdict; an accepted edit becomes the repository's style. Exit 0 accepted, 1 refused
 * or a bad input (the gate fails closed), 130 stopped.
 */
export async function gateStyle(
  args: readonly string[],
  values: Values,
  env: EnvSource,
  io: EvalIo,
): Promise<number> {
  refuseArguments(args);
  refuseOptions('gate-style', values, ['config', 'suite', 'attempts', 'repo-path', 'state-dir']);
  const proposalId = values['proposal'];
  const setPath = values['set'];
  if (!proposalId || !setPath)
    throw new UsageError(
      'eval',
      'gate-style needs --proposal ID (a review style edit) and --set SET (the labelled review set)',
    );
  const sandbox = values['sandbox'] ?? 'bwrap';
  if (!(SANDBOXES as readonly string[]).includes(sandbox))
    throw new UsageError('eval', `--sandbox must be ${SANDBOXES.join(', ')}, not '${sandbox}'`);
  const concurrency = Number(values['concurrency'] ?? '2');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError('eval', `--concurrency must be a whole number from 1 to 64`);
  const policy = gatePolicyOf(values);
  const { model, origin } = reviewerModelOf(values, env);
  const { readReviewSet } = await import('../review-eval/review-set-files.js');
  const set = await readReviewSet(setPath);
  const records = await gateRecords(values, env);
  const stopped = stopOnSignal(io, 'stopping after the cases under review');
  try {
    await import('reflect-metadata');
    const { runReviewEval } = await import('../review-eval/review-eval.service.js');
    const { StyleGate } = await import('./style-gate.service.js');
    const out = resolve(values['out'] ?? join('evals', `style-gate-${proposalId.slice(0, 8)}`));
    const against = values['against'];
    const outcome = await new StyleGate(records).decide(
      { proposalId, set: set.name, ...(against ? { against } : {}), policy, model },
      async ({ style, config, side }) => {
        io.out(`${side}: reviewing '${set.name}' as ${config}\n`);
        const report = await runReviewEval({
          set,
          model,
          modelOrigin: origin,
          concurrency,
          tolerance: 0,
          minSeverity: 'low',
          sandbox: sandbox as (typeof SANDBOXES)[number],
          out: join(out, side),
          env,
          write: (line) => io.out(`${line}\n`),
          signal: stopped,
          records,
          config,
          reviewStyle: style,
        });
        if (report.stopped) throw new AppError('PRECONDITION_FAILED', 'stopped by a signal');
        const { result } = report;
        return {
          runId: result.runId ?? '',
          set: result.set,
          config,
          model,
          cases: result.cases.flatMap((c) => (c.score ? [{ id: c.id, ...c.score }] : [])),
        };
      },
    );
    const { proposal, style, text } = outcome;
    io.out(text);
    io.out(
      `proposal ${proposal.id} (${proposal.repository ?? ''}): ${proposal.status}` +
        (style ? `, now version ${style.version} (edited by ${style.editedBy ?? ''})` : '') +
        `, recorded in ${records.where}\n`,
    );
    return proposal.status === 'accepted' ? 0 : 1;
  } catch (error) {
    if (stopped.aborted) {
      io.err('caravel eval gate-style: stopped; the proposal stays pending\n');
      return 130;
    }
    throw error;
  } finally {
    await records.close();
  }
}
