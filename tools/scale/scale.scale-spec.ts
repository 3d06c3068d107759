import { describe, expect, it } from '@jest/globals';
import { testEnvironment } from '@caravel/testing';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ChannelsWorld } from '../../e2e/support/channels-world.js';
import { ChaosRun } from '../chaos/harness/chaos-run.js';
import { SENDER_SETTINGS } from '../chaos/senders.js';
import { BASELINE, killOnlyOf, replicasOf, type ScaleOptions } from './options.js';
import { runPhase, type PhaseOutcome } from './phase.js';
import { summarise } from './report.js';
import { renderMarkdown, scaleReport, type ScaleReport } from './render.js';
import { TriggerFactory } from './triggers.js';

declare global {
  /** Set by `tools/scale/run.mjs` through the Jest config: its flags, as JSON. */
  var caravelScaleOptions: string | undefined;
}

const options = JSON.parse(globalThis.caravelScaleOptions || '{}') as ScaleOptions;
/** What the scripted agent runs in its sandbox after writing FIX.md, before its commit and PR. */
const CHECKS = ['cat FIX.md', 'git status --short', 'ls -la'];
const say = (line: string) => process.stdout.write(`scale: ${line}\n`);

/**
 * The scale-out measure (tools/scale/README.md): the baseline (one process of each service) and
 * the scaled shape, one after the other, each a fresh database and a namespace on the shared NATS,
 * under the same load and the same kills; one report, and a failure if anything was lost,
 * duplicated or not accounted for.
 */
describe('scale-out', () => {
  it('takes the mixed load under kills, losing and duplicating nothing', async () => {
    const run = await ChaosRun.open();
    const world = new ChannelsWorld(await run.subdir('world'), {
      repositories: TriggerFactory.repositories,
      checks: CHECKS,
    });
    const env = {
      ...(await world.start()),
      GITHUB_WEBHOOK_SECRET: SENDER_SETTINGS.GITHUB_WEBHOOK_SECRET,
      GITHUB_BOT_HANDLE: SENDER_SETTINGS.GITHUB_BOT_HANDLE,
      TRUSTED_AUTHORS: 'github:octocat',
      SANDBOX_ROOT: await run.subdir('sandboxes'),
      LOG_LEVEL: options.logLevel,
      // Admission is the team's setting, not the platform's size: high enough not to be the cap.
      DISPATCH_MAX_ACTIVE_RUNS: '24',
      DISPATCH_MAX_ACTIVE_RUNS_PER_REPO: '12',
    };
    const factory = new TriggerFactory(world);
    const loadAtStart = loadavg();
    const startedAt = new Date().toISOString();
    const shapes = [
      ...(options.baseline ? [{ name: 'baseline', replicas: BASELINE }] : []),
      { name: 'scaled', replicas: replicasOf(options.replicas) },
    ];
    const outcomes: PhaseOutcome[] = [];
    try {
      for (const shape of shapes) {
        const outcome = await runPhase(
          run,
          factory,
          {
            ...shape,
            natsUrl: testEnvironment.TEST_NATS_URL,
            env,
            plan: {
              rate: options.rate,
              durationMs: options.durationS * 1000,
              killEveryMs: options.killEveryS * 1000,
              killOnly: killOnlyOf(options.killOnly ?? ''),
              retryForMs: 90_000,
            },
            drainMs: options.drainS * 1000,
            logDir: options.out,
          },
          say,
        );
        outcomes.push(outcome);
        say(`${shape.name}: ${JSON.stringify(summarise(outcome.facts))}`);
      }
    } finally {
      await world.close();
      await run.removeFiles();
    }
    const report = scaleReport(
      {
        command: options.command,
        startedAt,
        cores: cpus().length,
        loadAtStart,
        loadAtEnd: loadavg(),
        options: { ...options },
      },
      outcomes.map((o) => ({
        ...summarise(o.facts),
        startRepeats: o.startRepeats,
        drainedMs: o.drainedMs,
      })),
      outcomes.flatMap((o) => o.problems),
    );
    await write(report);
    expect(report.failures).toEqual([]);
  });
});

async function write(report: ScaleReport): Promise<void> {
  await mkdir(options.out, { recursive: true });
  const markdown = renderMarkdown(report);
  await writeFile(join(options.out, 'scale.json'), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(options.out, 'scale.md'), markdown);
  process.stdout.write(`\n${markdown}\nreport: ${join(options.out, 'scale.md')}\n`);
}
