import type { FakeLlmServer } from '@caravel/testing';
import { expect } from '@jest/globals';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from './walking-skeleton.js';

/**
 * The kill -9 resume scenario, shared by every platform shape that proves it (separate processes
 * on NATS + PostgreSQL, one `caravel start` process on the embedded bus + PGlite): the fake
 * provider answers with three commands, the second one slow, then `submit`. Each command appends
 * its own line to `calls.log`, so the log tells how often each one ran to completion, and the fake
 * provider's request count tells how often the model was asked.
 */
const execute = (command: string) => ({ toolCalls: [{ name: 'execute', args: { command } }] });

/** The marker the slow command writes first: the process is killed once it exists. */
const SLOW_STARTED = 'slow.started';

const ANSWERS = [
  execute('echo one >> calls.log'),
  execute(`touch ${SLOW_STARTED}; sleep 6; echo two >> calls.log`),
  execute('echo three >> calls.log'),
  { toolCalls: [{ name: 'submit', args: {} }] },
];

/** The log every command ran to completion exactly once would leave. */
const EACH_ONCE = 'one\ntwo\nthree\n';

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
   * Resolves while the slow command runs: the model call that asked for it completed (and is
   * checkpointed), the command itself has not. `diagnostics` is shown if it never starts.
   */
  async slowCommandRunning(workspace: string, diagnostics: () => string): Promise<void> {
    await eventually(
      async () =>
        (await stat(join(workspace, SLOW_STARTED)).catch(() => null)) ? true : undefined,
      180_000,
    ).catch((error: unknown) => {
      throw new Error(`the slow command never started (${String(error)})\n${diagnostics()}`);
    });
  }

  /**
   * Four scripted answers, four model calls (none asked twice), and each command completed exactly
   * once (the interrupted one only on resume). `diagnostics` is shown only when a count is off.
   */
  async expectNothingRepeated(workspace: string, diagnostics: () => Promise<unknown>) {
    const modelCalls = this.fake.requests.length - this.requestsBefore;
    const log = await readFile(join(workspace, 'calls.log'), 'utf8').catch(() => '(no calls.log)');
    const counts = { modelCalls, log };
    const expected = { modelCalls: ANSWERS.length, log: EACH_ONCE };
    const off = JSON.stringify(counts) !== JSON.stringify(expected);
    expect({ ...counts, diagnostics: off ? await diagnostics() : null }).toEqual({
      ...expected,
      diagnostics: null,
    });
  }
}
