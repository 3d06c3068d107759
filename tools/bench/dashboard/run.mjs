#!/usr/bin/env node
// Step latency benchmark: how soon the thread page of the embedded platform (`caravel start` in
// this process: every service, the embedded bus, PGlite) shows a run step after its event is
// published. A thread page is open in Chromium (playwright-core, `which chromium`); N steps are
// published on the bus one at a time, and for each the bench measures, from the publish
// (Date.now() here), the dashboard indexing it (its RunEventNotifier: the floor, in the same run),
// the page's Server-Sent Event arriving, and the step's element entering the DOM (the page stamps
// both with performance.timeOrigin + performance.now(): the same machine clock). Goal: every step
// on the page within 1 s of its event (issue 16).
//   node tools/scripts/build.mjs && node tools/bench/dashboard/run.mjs [--steps 40]
// Fails loudly when a step never reaches the index, the stream or the page, or arrives twice.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startEmbedded } from '@caravel/cli';
import { RunStepV1 } from '@caravel/contracts';
import { RunEventNotifier } from '@caravel/dashboard';
import { ThreadRepository } from '@caravel/db';
import { BUS, DATABASE } from '@caravel/platform';
import { loadAverage, printSummary, row } from '../summary.mjs';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '40' } } });
const STEPS = Number(values.steps);
const GOAL_MS = 1_000;
/** How long one step may take to reach the page before the bench gives up on it. */
const STEP_LIMIT_MS = 30_000;
if (!(STEPS >= 1)) fail('--steps must be >= 1');

/** Ends the bench as failed (after it has closed what it started). */
function fail(message) {
  throw new Error(`dashboard bench FAILED: ${message}`);
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1];
const stats = (xs) => ({ p50: quantile(xs, 0.5), p95: quantile(xs, 0.95), max: Math.max(...xs) });

/* global window, document, Element, MutationObserver -- stampSteps and the waits run in the page */
/**
 * Stamps, in the page, each step's Server-Sent Event as it arrives (a listener added before the
 * page's own) and its `li.evt-run-step` as it enters the DOM, by step number.
 */
function stampSteps() {
  const now = () => performance.timeOrigin + performance.now();
  const stamps = { sse: {}, dom: {}, twice: [] };
  window.__stamps = stamps;
  const NativeEventSource = window.EventSource;
  window.EventSource = class extends NativeEventSource {
    constructor(...args) {
      super(...args);
      this.addEventListener('run-event', (message) => {
        const event = JSON.parse(message.data);
        if (event.type !== 'evt.run.step') return;
        if (stamps.sse[event.data.step] !== undefined) stamps.twice.push(event.data.step);
        stamps.sse[event.data.step] ??= now();
      });
    }
  };
  new MutationObserver((records) => {
    const at = now();
    for (const record of records)
      for (const node of record.addedNodes) {
        if (!(node instanceof Element) || !node.matches('li.evt-run-step')) continue;
        const step = /^Step (\d+)/.exec(node.querySelector('h3')?.textContent ?? '')?.[1];
        if (step !== undefined) stamps.dom[step] ??= at;
      }
  }).observe(document, { childList: true, subtree: true });
}

const dataDir = await mkdtemp(join(tmpdir(), 'caravel-bench-dashboard-'));
const host = await startEmbedded(
  { PATH: process.env.PATH, LOG_LEVEL: 'error' },
  { dataDir, port: 0, handleSignals: false, progress: () => undefined },
);
const browser = await chromium.launch({
  executablePath: execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim(),
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const bus = host.app.get(BUS, { strict: false });
  const notifier = host.app.get(RunEventNotifier, { strict: false });
  const threadId = randomUUID();
  const runId = randomUUID();
  await new ThreadRepository(host.app.get(DATABASE, { strict: false }).db).upsert({
    id: threadId,
    source: 'github',
    title: 'Step latency bench',
  });
  const indexed = [];
  let current = -1;
  notifier.subscribe(threadId, () => (indexed[current] ??= Date.now()));

  const page = await browser.newPage();
  await page.addInitScript(stampSteps);
  await page.goto(`${host.url}/#/threads/${threadId}`);
  await page.getByRole('heading', { level: 1, name: 'Step latency bench' }).waitFor();

  /** Publishes step `step` and waits until the page shows it; its publish time. */
  async function publishStep(step) {
    current = step;
    const data = { threadId, runId, step, thought: `Step ${step} of the bench.` };
    const envelope = RunStepV1.create(data, { source: 'bench' });
    const published = Date.now();
    await bus.publish(RunStepV1, envelope);
    await page
      .waitForFunction((s) => window.__stamps.dom[s] !== undefined, step, {
        timeout: STEP_LIMIT_MS,
        polling: 10,
      })
      .catch(() => fail(`step ${step} was not on the page ${STEP_LIMIT_MS} ms after its event`));
    return published;
  }

  // Step 0 warms the path (the page's first stream message, React's first step); not counted.
  await publishStep(0);
  const published = [];
  for (let step = 1; step <= STEPS; step += 1) published[step] = await publishStep(step);
  const stamps = await page.evaluate(() => window.__stamps);
  const figures = { index: [], sse: [], dom: [] };
  for (let step = 1; step <= STEPS; step += 1) {
    const seen = { index: indexed[step], sse: stamps.sse[step], dom: stamps.dom[step] };
    for (const [what, at] of Object.entries(seen)) {
      if (at === undefined) fail(`step ${step}: no ${what} stamp`);
      figures[what].push(at - published[step]);
    }
  }
  if (stamps.twice.length) fail(`steps streamed twice: ${stamps.twice.join(', ')}`);
  const shown = await page.locator('ol.events li.evt-run-step').count();
  if (shown !== STEPS + 1) fail(`the page shows ${shown} steps, expected ${STEPS + 1}`);

  const load = loadAverage();
  const index = stats(figures.index);
  const sse = stats(figures.sse);
  const dom = stats(figures.dom);
  const fmt = (s) => `p50 ${s.p50.toFixed(1)} · p95 ${s.p95.toFixed(1)} · max ${s.max.toFixed(1)}`;
  const ratio = (a, b) => `x${(a / b).toFixed(2)}`;
  const met = dom.max <= GOAL_MS;
  process.stdout.write(
    [
      `dashboard step latency: ${STEPS} steps published one at a time, each on the page (load ${load})`,
      `  publish → indexed (floor)   ms: ${fmt(index)}`,
      `  publish → SSE at the page   ms: ${fmt(sse)}  (p50 ${ratio(sse.p50, index.p50)}, p95 ${ratio(sse.p95, index.p95)} of the floor)`,
      `  publish → step in the DOM   ms: ${fmt(dom)}  (p50 ${ratio(dom.p50, index.p50)}, p95 ${ratio(dom.p95, index.p95)} of the floor)`,
      `verdict: ${met ? 'met' : 'NOT met'} — the slowest step was on the page ${dom.max.toFixed(0)} ms after its event (goal: every step within ${GOAL_MS} ms)`,
      '',
    ].join('\n'),
  );
  const goal = `every step within ${GOAL_MS} ms`;
  printSummary('dashboard', [
    row({
      what: 'step in the DOM p50 (ms)',
      value: dom.p50,
      floor: 'indexed p50',
      floorValue: index.p50,
    }),
    row({
      what: 'step in the DOM p95 (ms)',
      value: dom.p95,
      floor: 'indexed p95',
      floorValue: index.p95,
    }),
    row({
      what: 'step in the DOM max (ms)',
      value: dom.max,
      floor: 'indexed max',
      floorValue: index.max,
      goal,
      met,
    }),
    row({
      what: 'SSE at the page p50 (ms)',
      value: sse.p50,
      floor: 'indexed p50',
      floorValue: index.p50,
    }),
  ]);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await browser.close();
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
}
