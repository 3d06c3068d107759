import type { RunEventRow } from '@caravel/db';
import type { RunStatus } from './run-status.js';

/** What a step event says about its model call and tool calls. */
interface StepData {
  step?: number;
  action?: string;
  observation?: string;
  thought?: string;
  toolCalls?: unknown[];
  usage?: { inputTokens?: number; outputTokens?: number; costUsd?: number };
}

/** A run's progress so far, summed over its steps. */
export interface RunTotals {
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Adds one step to the totals. */
export function addStep(totals: RunTotals, step: StepData): RunTotals {
  return {
    toolCalls: totals.toolCalls + (step.toolCalls?.length ?? 0),
    inputTokens: totals.inputTokens + (step.usage?.inputTokens ?? 0),
    outputTokens: totals.outputTokens + (step.usage?.outputTokens ?? 0),
    costUsd: totals.costUsd + (step.usage?.costUsd ?? 0),
  };
}

/** `tool calls 3 · tokens 2,400 in / 120 out · $0.0123 · 4.2 s` */
export function progressLine(totals: RunTotals, elapsedMs: number): string {
  const n = (value: number) => value.toLocaleString('en-US');
  return (
    `tool calls ${totals.toolCalls} · tokens ${n(totals.inputTokens)} in / ${n(totals.outputTokens)} out` +
    ` · $${totals.costUsd.toFixed(4)} · ${(elapsedMs / 1000).toFixed(1)} s`
  );
}

function submits(step: StepData): boolean {
  return (step.toolCalls ?? []).some((call) => (call as { name?: unknown }).name === 'submit');
}

function firstLine(text: string, max = 100): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function lastLine(text: string, max = 100): string {
  const line =
    text
      .split('\n')
      .reverse()
      .find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** What `caravel run` shows of a run's indexed events as they come: steps, output, totals. */
export class RunProgress {
  steps = 0;
  totals: RunTotals = { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  /** True once the run's `evt.run.finished` is shown: every event before it was shown too. */
  endShown = false;
  private after = 0;

  constructor(
    private readonly status: RunStatus,
    private readonly runId: string,
    private readonly started: number,
  ) {}

  /** The query for the events not shown yet. */
  next(): { afterPosition: number } {
    return { afterPosition: this.after };
  }

  /** Shows events read with {@link next}, in their order. */
  show(events: readonly RunEventRow[]): void {
    for (const event of events) {
      this.after = event.position;
      this.showOne(event);
    }
  }

  private showOne(event: RunEventRow): void {
    const data = event.data as StepData & { text?: string };
    const { status } = this;
    if (event.type === 'evt.run.started') status.set(`step ${this.steps}: calling the model`);
    if (event.type === 'evt.run.output') {
      status.set(`step ${this.steps}: running a command`);
      status.note(lastLine(data.text ?? ''));
    }
    if (event.type === 'evt.run.step') this.showStep(data);
    if (event.type === 'evt.run.finished') {
      this.endShown ||= event.runId === this.runId;
      status.set('finishing the run');
    }
  }

  private showStep(data: StepData): void {
    this.steps += 1;
    this.totals = addStep(this.totals, data);
    const { status } = this;
    const what = firstLine(data.action || data.thought || '(no action)');
    status.line(`  step ${data.step ?? this.steps - 1}: ${what}`);
    if (data.observation) status.line(`    → ${firstLine(data.observation)}`);
    status.line(`    ${progressLine(this.totals, Date.now() - this.started)}`);
    status.set(submits(data) ? 'finishing the run' : `step ${this.steps}: calling the model`);
  }
}
