// The ingress bench's report: a row per server and load, the checks that it did the work, and the
// BENCH-SUMMARY rows with issue 22's goals.
import { row } from '../summary.mjs';

/** Slack gives up on a delivery not answered within 3 s; the goal keeps a third of it spare. */
export const SLACK_BURST_P99_GOAL_MS = 2_000;
/** The open-loop p99 goal on a quiet machine. */
export const GITHUB_RATE_P99_GOAL_MS = 10;

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

const failuresOf = (result) =>
  Object.entries(result.failures)
    .map(([what, count]) => `${what}:${count}`)
    .join(',');

/** One printed line: a server under one load, with its ratios to the bare endpoint's. */
export function resultRow(name, label, result, floor) {
  const ratio = floor
    ? `  | x${fmt(result.rate / floor.rate, 2)} done/s  x${fmt(result.p50 / floor.p50, 2)} p50` +
      `  x${fmt(result.p99 / floor.p99, 2)} p99`
    : '';
  const failures = failuresOf(result);
  const runs = result.p99Runs
    ? `  (p99 of each run: ${result.p99Runs.map((p99) => fmt(p99)).join(' / ')} ms)`
    : '';
  return (
    `${name.padEnd(37)} ${label.padEnd(22)} ${String(result.ok).padStart(6)}/${result.sent} 2xx` +
    `  ${fmt(result.rate, 0).padStart(5)} done/s  p50 ${fmt(result.p50).padStart(7)} ms` +
    `  p99 ${fmt(result.p99).padStart(7)} ms${ratio}${failures ? `  non-2xx ${failures}` : ''}` +
    `${runs}\n`
  );
}

/**
 * What says the server did not do the work counted: a load with nothing sent or with an answer
 * other than 2xx; a 2xx that did not say `accepted` where the server says it; a handler that took
 * fewer deliveries than were sent (warm-ups included).
 */
export function problemsOf(server, results) {
  const problems = [];
  let sent = 0;
  for (const [load, result] of Object.entries(results)) {
    if (load === 'handled') continue;
    sent += result.sent;
    if (result.sent === 0) problems.push(`${server.name}, ${load}: nothing was sent`);
    if (result.ok < result.sent)
      problems.push(
        `${server.name}, ${load}: ${result.ok}/${result.sent} answered 2xx (${failuresOf(result)})`,
      );
    if (server.accepts && result.accepted < result.ok)
      problems.push(
        `${server.name}, ${load}: ${result.ok - result.accepted} 2xx answers did not say accepted`,
      );
  }
  if (results.handled !== null && results.handled < sent)
    problems.push(`${server.name}: its handler took ${results.handled} of ${sent} deliveries`);
  return problems;
}

/** The faster Bolt receiver at the Slack peak: the one Caravel has to beat. */
function fasterBolt(measured) {
  const bolts = [
    ['Bolt HTTPReceiver', measured.bolt],
    ['Bolt ExpressReceiver', measured['bolt-express']],
  ].filter(([, result]) => result);
  bolts.sort(([, a], [, b]) => b.slackPeak.rate - a.slackPeak.rate);
  return bolts[0] ? { name: bolts[0][0], result: bolts[0][1] } : undefined;
}

/** The peers against the bare endpoint: the anchors the goals are read with. */
function anchorRows({ bare, octokit, floor, ...rest }, { rate }) {
  if (!bare) return [];
  const rows = [];
  if (floor)
    rows.push(
      row({
        what: `durable floor: github ${rate}/s p99 (ms)`,
        value: floor.githubRate.p99,
        floor: 'bare NestJS',
        floorValue: bare.githubRate.p99,
      }),
    );
  if (octokit)
    rows.push(
      row({
        what: 'octokit: github peak done/s',
        value: octokit.githubPeak.rate,
        floor: 'bare NestJS',
        floorValue: bare.githubPeak.rate,
      }),
    );
  for (const mode of ['bolt', 'bolt-express'])
    if (rest[mode])
      rows.push(
        row({
          what: `${mode}: slack peak done/s`,
          value: rest[mode].slackPeak.rate,
          floor: 'bare NestJS',
          floorValue: bare.slackPeak.rate,
        }),
      );
  return rows;
}

/** A peak compared with a floor or peer's peak, with the goal of reaching `factor` times it. */
function peakRow(what, value, floor, floorValue, factor, goalOf) {
  return row({
    what,
    value,
    floor,
    floorValue,
    goal: `>= ${factor}x ${goalOf}`,
    met: value >= floorValue * factor,
  });
}

/** One Caravel mode against the floor and the peers, with issue 22's goals. */
function caravelRows(mode, caravel, { bare, octokit, bolt, durable }, { burst, rate }) {
  const github = `${mode}: github peak done/s`;
  const rows = [];
  if (bare)
    rows.push(
      peakRow(github, caravel.githubPeak.rate, 'bare NestJS', bare.githubPeak.rate, 0.5, 'bare'),
    );
  if (octokit)
    rows.push(
      peakRow(
        github,
        caravel.githubPeak.rate,
        "Probot's way",
        octokit.githubPeak.rate,
        1.5,
        'Probot',
      ),
    );
  if (bolt)
    rows.push(
      peakRow(
        `${mode}: slack peak done/s`,
        caravel.slackPeak.rate,
        bolt.name,
        bolt.result.slackPeak.rate,
        1.5,
        'Bolt',
      ),
    );
  rows.push(
    row({
      what: `${mode}: github ${rate}/s p99 (ms)`,
      value: caravel.githubRate.p99,
      floor: 'bare NestJS',
      floorValue: bare?.githubRate.p99,
      goal: `<= ${GITHUB_RATE_P99_GOAL_MS} ms`,
      met: caravel.githubRate.p99 <= GITHUB_RATE_P99_GOAL_MS,
    }),
  );
  // The same claim, publish and settle written plainly: what the machine allows a durable
  // ingress. Informational (no goal): it tells the ingress's own cost from the machine's.
  if (durable)
    rows.push(
      row({
        what: `${mode}: github ${rate}/s p99 (ms)`,
        value: caravel.githubRate.p99,
        floor: 'durable floor',
        floorValue: durable.githubRate.p99,
      }),
      row({
        what: `${mode}: github peak done/s`,
        value: caravel.githubPeak.rate,
        floor: 'durable floor',
        floorValue: durable.githubPeak.rate,
      }),
    );
  rows.push(
    row({
      what: `${mode}: slack burst ${burst} p99 (ms)`,
      value: caravel.slackBurst.p99,
      floor: bolt?.name ?? 'bare NestJS',
      floorValue: (bolt?.result ?? bare)?.slackBurst.p99,
      goal: `<= ${SLACK_BURST_P99_GOAL_MS} ms`,
      met: caravel.slackBurst.p99 <= SLACK_BURST_P99_GOAL_MS,
    }),
  );
  return rows;
}

/** Every BENCH-SUMMARY row of the run: the anchors, then each Caravel mode measured. */
export function summaryRows(measured, loads) {
  const peers = {
    bare: measured.bare,
    octokit: measured.octokit,
    bolt: fasterBolt(measured),
    durable: measured.floor,
  };
  return [
    ...anchorRows(measured, loads),
    ...['embedded', 'distributed']
      .filter((mode) => measured[mode])
      .flatMap((mode) => caravelRows(mode, measured[mode], peers, loads)),
  ];
}
