import { loadConfig, type EnvSource } from '@caravel/config';
import {
  closeOnSignals,
  logLevelsFrom,
  openDistributedRuntime,
  startServiceHost,
} from '@caravel/platform';
import { hostname } from 'node:os';
import type { EvalIo } from '../eval-options.js';
import { EvalScheduleSweep, type SweepOutcome } from './eval-schedule.sweep.js';
import { evalSchedulerConfigSchema } from './eval-scheduler.config.js';
import { EvalSchedulesModule } from './eval-schedules.module.js';

/** The one line `--once` ends with: what the sweep ran, or why it ran nothing. */
export function sweepSummary(outcome: SweepOutcome | null): string {
  if (outcome === null)
    return 'nothing swept: another scheduler holds the sweep (or the sweep failed; see the log above)';
  const { ran, failed } = outcome;
  if (ran.length === 0 && failed.length === 0) return 'no scheduled suite was due';
  const parts = [
    ...(ran.length ? [`ran ${ran.join(', ')}`] : []),
    ...(failed.length
      ? [`failed ${failed.join(', ')} (kept on the schedule until its next night)`]
      : []),
  ];
  return parts.join('; ');
}

/**
 * `caravel eval scheduler [--once]`: the nightly eval suites of a team deployment (NATS_URL,
 * DATABASE_URL), as `caravel start` sweeps them embedded. Serving, it sweeps every
 * EVAL_SCHEDULE_CHECK_MS under the sweep's bus lease (any number of schedulers: one sweeps at a
 * time) with health and metrics on PORT; `--once` sweeps once now and exits (a cron job): 0 when
 * nothing failed, 1 when a night failed.
 */
export async function runEvalScheduler(
  once: boolean,
  env: EnvSource,
  io: EvalIo,
): Promise<number | 'serving'> {
  const { service, evalSchedules } = loadConfig('eval-scheduler', evalSchedulerConfigSchema, env);
  // Serving, it is a deployment's process: JSON lines, as every service logs.
  if (!once) {
    const { installLogger } = await import('@caravel/logging');
    installLogger({ service: 'eval-scheduler', format: 'json', env });
  }
  const runtime = await openDistributedRuntime({
    name: `eval-scheduler-${hostname()}-${process.pid}`,
    natsUrl: service.natsUrl,
    databaseUrl: service.databaseUrl,
    // DATABASE_MIGRATE=false: only checks the schema, as a service on its role does (caravel_evals).
    migrate: service.databaseMigrate,
    ...(service.busNamespace ? { busNamespace: service.busNamespace } : {}),
  });
  const host = await startServiceHost({
    runtime,
    modules: [EvalSchedulesModule.register(evalSchedules, env)],
    // A one-off sweep serves nothing: any free port, on loopback.
    port: once ? 0 : service.port,
    host: once ? '127.0.0.1' : service.host,
    logLevels: logLevelsFrom(service.logLevel),
    tracing: { service: 'caravel-eval-scheduler', env },
  }).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  if (!once) {
    closeOnSignals(host, service.shutdownGraceMs);
    io.out(
      `eval scheduler listening on ${host.url}; looking for due suites every ` +
        `${Math.round(evalSchedules.checkMs / 1000)} s (runs in ${evalSchedules.dir})\n`,
    );
    return 'serving';
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= host.close());
  io.onSignal((signal) => {
    io.err(`\n${signal}: stopping; the night in flight resumes at the next sweep\n`);
    void close();
  });
  try {
    const outcome = await host.app.get(EvalScheduleSweep).sweep();
    io.out(`${sweepSummary(outcome)}\n`);
    return outcome !== null && outcome.failed.length > 0 ? 1 : 0;
  } finally {
    await close();
  }
}
