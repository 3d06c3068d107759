import type { FakeLlmServer } from '@caravel/testing';
import { expect } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually, type EventView } from './walking-skeleton.js';

/**
 * The kill -9 resume scenario, shared by every platform shape that proves it (separate processes
 * on NATS + PostgreSQL, one `caravel start` process on the embedded bus + PGlite): the fake
 * provider answers with three commands, the second one slow, then `submit`. Each command appends
 * its own line to `calls.log`, so the log tells how often each one ran to completion, and the fake
 * provider's request count tells how often the model was asked.
 *
 * The slow command waits for the test, not for a few seconds a loaded machine may not keep: it
 * notes each start in `slow.started` and then waits for `slow.go`, which the test writes only once
 * the resumed run has started the command again. A first command the crash did not end (its
 * sandbox session not abandoned) sees `slow.go` too, and the log shows `two` twice.
 */
const execute = (command: string) => ({ toolCalls: [{ name: 'execute', args: { command } }] });

/** Each start of the slow command adds a line here. */
const SLOW_STARTED = 'slow.started';
/** The slow command finishes once this exists. */
const SLOW_GO = 'slow.go';

const ANSWERS = [
  execute('echo one >> calls.log'),
  execute(
    `echo started >> ${SLOW_STARTED}; until [ -e ${SLOW_GO} ]; do sleep 0.2; done; echo two >> calls.log`,
  ),
  execute('echo three >> calls.log'),
  { toolCalls: [{ name: 'submit', args: {} }] },
];

/** How long to wait for a start of the slow command, and how to stop waiting. */
interface SlowWait {
  readonly times?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** The log every command ran to completion exactly once would leave. */
const EACH_ONCE = 'one\ntwo\nthree\n';

/** Each event as `sequence type data`, its strings cut to 160 characters (no system prompt). */
export function eventLines(events: unknown): string[] {
  if (!Array.isArray(events)) return [JSON.stringify(events).slice(0, 2000)];
  return (events as EventView[]).map((event) => {
    const data = JSON.stringify(event.data ?? {}, (key, value: unknown) =>
      key === 'systemPrompt' ? undefined : typeof value === 'string' ? value.slice(0, 160) : value,
    );
    return `${event.sequence} ${event.type} ${data.slice(0, 600)}`;
  });
}

/** A thread's workspace as the sandbox broker lays it out under `SANDBOX_ROOT`. */
export function threadWorkspace(sandboxRoot: string, threadId: string): string {
  return join(sandboxRoot, threadId, 'workspace');
}

/**
 * One crash-resume run's accounting: script the fake provider before the trigger goes out, wait
 * for the slow command before killing, then check that nothing completed twice.
 */
export class CrashResumeScript {
  private readonly requestsBefore: number;

  constructor(private readonly fake: FakeLlmServer) {
    this.requestsBefore = fake.requests.length;
    fake.enqueue(...ANSWERS);
  }

  /**
   * Resolves while the slow command runs for the `times`th time: the model call that asked for it
   * completed (and is checkpointed), the command itself has not. `diagnostics` is shown if it
   * never starts; an abort stops the wait quietly.
   */
  async slowCommandRunning(
    workspace: string,
    diagnostics: () => string,
    { times = 1, timeoutMs = 180_000, signal }: SlowWait = {},
  ): Promise<void> {
    await eventually(async () => {
      if (signal?.aborted) return true;
      const starts = await readFile(join(workspace, SLOW_STARTED), 'utf8').catch(() => '');
      return starts.split('\n').filter(Boolean).length >= times ? true : undefined;
    }, timeoutMs).catch((error: unknown) => {
      const which = times === 1 ? 'the slow command never started' : 'it never started again';
      throw new Error(`${which} (${String(error)})\n${diagnostics()}`);
    });
  }

  /**
   * Lets the slow command finish once the resumed run has started it again, unless `signal`
   * aborts first (the run ended some other way: the caller reports that).
   */
  async finishSlowCommandOnResume(
    workspace: string,
    diagnostics: () => string,
    signal: AbortSignal,
  ): Promise<void> {
    await this.slowCommandRunning(workspace, diagnostics, { times: 2, timeoutMs: 300_000, signal });
    if (!signal.aborted) await writeFile(join(workspace, SLOW_GO), '');
  }

  /**
   * Four scripted answers, four model calls (none asked twice), and each command completed exactly
   * once (the interrupted one only on resume). `diagnostics` is shown only when a count is off.
   */
  async expectNothingRepeated(
    workspace: string,
    events: () => Promise<unknown>,
    logs: () => string = () => '',
  ) {
    const modelCalls = this.fake.requests.length - this.requestsBefore;
    const log = await readFile(join(workspace, 'calls.log'), 'utf8').catch(() => '(no calls.log)');
    const counts = { modelCalls, log };
    const expected = { modelCalls: ANSWERS.length, log: EACH_ONCE };
    const off = JSON.stringify(counts) !== JSON.stringify(expected);
    // The thread's events one line each, first: a failure report cut short still shows them.
    const diagnostics = off ? { events: eventLines(await events()), logs: logs() } : null;
    expect({ ...counts, diagnostics }).toEqual({ ...expected, diagnostics: null });
  }
}
