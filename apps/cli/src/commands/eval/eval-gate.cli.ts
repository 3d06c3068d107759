import type { EnvSource } from '@caravel/config';
import { UsageError } from '../cli-args.js';
import {
  gatePolicyOf,
  gateRecords,
  refuseArguments,
  refuseOptions,
  stoppedOr,
  suiteRunSettings,
  type EvalIo,
  type Values,
} from './eval-options.js';

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/**
 * `caravel eval gate --suite DIR (--config C | --proposal ID) [--against RUN] [--max-drop P]
 * [--alpha A] ...`: runs the proposed configuration on the suite, compares it with the current
 * configuration's last run and keeps the verdict with the proposal in the database. Exit 0
 * accepted, 1 refused (or a bad input: the gate fails closed), 130 stopped (run it again).
 */
export async function gate(
  args: readonly string[],
  values: Values,
  env: EnvSource,
  io: EvalIo,
): Promise<number> {
  refuseArguments(args);
  const suitePath = values['suite'];
  if (!suitePath)
    throw new UsageError('eval', 'gate needs --suite DIR (the suite of Harbor tasks)');
  const configValue = values['config'];
  const proposalId = values['proposal'];
  if (!configValue === !proposalId)
    throw new UsageError(
      'eval',
      'gate needs --config NAME|FILE.json (the proposed configuration) or --proposal ID (a pending one), not both',
    );
  if (proposalId) refuseOptions('gate --proposal', values, ['model']);
  const policy = gatePolicyOf(values);
  const settings = suiteRunSettings(values, env, io);
  const { readSuite } = await import('./eval-suite.js');
  const { resolveEvalConfig } = await import('./eval-config.js');
  const suite = await readSuite(suitePath);
  const model = values['model'];
  const proposal = configValue
    ? { config: await resolveEvalConfig(configValue, { ...(model ? { model } : {}), env }) }
    : { id: proposalId ?? '' };
  const records = await gateRecords(values, env);
  try {
    const { runEvalSuite } = await import('./eval-run.service.js');
    const { EvalGate } = await import('./eval-gate.service.js');
    const against = values['against'];
    const outcome = await new EvalGate(records).decide(
      {
        suite: suite.name,
        proposal,
        ...(against ? { against } : {}),
        policy,
        proposedBy: env['USER'] ?? 'cli',
      },
      async (config) => {
        const report = await runEvalSuite({ suite, config, ...settings, records: records.runs });
        return { run: report.run, out: report.out };
      },
    );
    const { proposal: decided, baseline, report } = outcome;
    io.out(report.text);
    for (const file of report.written) io.out(`written: ${file}\n`);
    io.out(
      `proposal ${decided.id} (${decided.config}): ${decided.status} against run ${baseline.id} ` +
        `(${baseline.config}): ${percent(report.comparison.baseline.resolve.rate)} -> ` +
        `${percent(report.comparison.candidate.resolve.rate)}, recorded in ${records.where}\n`,
    );
    return decided.status === 'accepted' ? 0 : 1;
  } catch (error) {
    return stoppedOr(settings, error, io);
  } finally {
    await records.close();
  }
}
