import { failures, scalingRatio, type PhaseReport } from './report.js';

/** The whole invocation: the machine, the command, each phase, the ratio and the verdict. */
export interface ScaleReport {
  command: string;
  startedAt: string;
  cores: number;
  /** 1, 5 and 15 minute load averages at the start and the end. */
  loadAtStart: number[];
  loadAtEnd: number[];
  options: Record<string, unknown>;
  phases: (PhaseReport & { startRepeats: number; drainedMs: number })[];
  /** Scaled throughput over the baseline's, when both ran. */
  scalingRatio: number | null;
  failures: string[];
}

/** Assembles the report; a phase's problems (odd answers, dead processes) are failures too. */
export function scaleReport(
  base: Omit<ScaleReport, 'scalingRatio' | 'failures' | 'phases'>,
  phases: ScaleReport['phases'],
  problems: string[],
): ScaleReport {
  const baseline = phases.find((p) => p.name === 'baseline');
  const scaled = phases.find((p) => p.name !== 'baseline');
  return {
    ...base,
    phases,
    scalingRatio: baseline && scaled ? scalingRatio(scaled, baseline) : null,
    failures: [...phases.flatMap(failures), ...problems],
  };
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const seconds = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '-');
const replicas = (r: Readonly<Record<string, number>>) =>
  Object.entries(r)
    .map(([name, n]) => `${n} ${name}`)
    .join(', ');

/** The report as markdown (what docs/deployment.md quotes). */
export function renderMarkdown(report: ScaleReport): string {
  const rows: [string, (p: ScaleReport['phases'][number]) => string][] = [
    ['replicas', (p) => replicas(p.replicas)],
    ['requests (planned)', (p) => `${p.requests} (${p.planned})`],
    ['webhooks sent', (p) => String(p.webhooksSent)],
    ['accepted', (p) => String(p.accepted)],
    ['runs completed', (p) => String(p.runsCompleted)],
    ['draft PRs / replies', (p) => `${p.pulls} / ${p.replies}`],
    ['throughput (runs/min)', (p) => fixed(p.throughputPerMinute)],
    ['accepted → run started p50', (p) => seconds(p.startLatencyMs.p50)],
    ['accepted → run started p99', (p) => seconds(p.startLatencyMs.p99)],
    ['lost', (p) => String(p.lost)],
    ['duplicated', (p) => String(p.duplicated)],
    ['restarts (kill -9)', (p) => `${p.restarts} (${replicas(p.kills) || 'none'})`],
    ['start commands repeated', (p) => String(p.startRepeats)],
    ['drain after the load', (p) => seconds(p.drainedMs)],
  ];
  const head = `| | ${report.phases.map((p) => p.name).join(' | ')} |`;
  const rule = `|---|${report.phases.map(() => '---').join('|')}|`;
  const table = rows.map(
    ([label, cell]) => `| ${label} | ${report.phases.map(cell).join(' | ')} |`,
  );
  const sources = report.phases.map(
    (p) =>
      `- ${p.name}: ${Object.entries(p.bySource)
        .map(([s, r]) => `${s} ${r.completed}/${r.requests}`)
        .join(', ')}`,
  );
  return [
    `# Scale-out measure, ${report.startedAt}`,
    '',
    `\`${report.command}\``,
    '',
    `${report.cores} cores; load average ${report.loadAtStart.map((n) => fixed(n, 2)).join(' ')} at the start, ${report.loadAtEnd.map((n) => fixed(n, 2)).join(' ')} at the end.`,
    '',
    head,
    rule,
    ...table,
    '',
    `Scaling ratio (throughput scaled / baseline): ${report.scalingRatio === null ? '-' : fixed(report.scalingRatio, 2)}`,
    '',
    'Completed runs per source:',
    ...sources,
    '',
    report.failures.length === 0
      ? 'Verdict: pass (nothing lost, nothing duplicated, every request accounted for).'
      : ['Verdict: FAIL', ...report.failures.map((f) => `- ${f}`)].join('\n'),
    '',
  ].join('\n');
}
