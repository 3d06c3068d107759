import {
  RunBundleSession,
  parseBundleConfig,
  type BundleShell,
  type Sandbox,
} from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import { defineTool } from '@caravel/tools';
import { z } from 'zod';
import { exitReasonForError } from './exit-reasons.js';
import { guardedShellInput, RunToolBundles, withBundleState } from './tool-bundles.js';

const EDIT = [{ name: 'edit', endName: 'end_of_edit' }];

/** A sandbox session whose state file says which call ran last. */
function session(): BundleShell {
  let last = 'none';
  return {
    exec: (command) => {
      if (command.startsWith('echo ')) last = command.slice(5);
      const output = command.startsWith('cat ') ? JSON.stringify({ after: last }) : '';
      return Promise.resolve({
        exitCode: 0,
        output,
        timedOut: false,
        truncated: false,
        outputBytes: 0,
        elapsedMs: 0,
      });
    },
  };
}

describe("a run's tools with SWE-agent bundles", () => {
  it('adds the heredoc to a multi-line bundle command, and leaves anything else as it is', () => {
    expect(guardedShellInput({ command: 'edit 2:2\n  x\nend_of_edit' }, EDIT)).toEqual({
      command: "edit 2:2 << 'end_of_edit'\n  x\nend_of_edit",
    });
    const unterminated = { command: 'edit 2:2\n  x' };
    expect(guardedShellInput(unterminated, EDIT)).toBe(unterminated);
    expect(guardedShellInput({ command: 'ls' }, EDIT)).toEqual({ command: 'ls' });
    expect(guardedShellInput({ path: 'a' }, EDIT)).toEqual({ path: 'a' });
  });

  it('records the state after each call by its id and guards only the shell tool', async () => {
    const shell = session();
    const windowed = parseBundleConfig(
      'tools:\n  edit:\n    end_name: end_of_edit\nstate_command: _state\n',
      'config.yaml',
    );
    const bundles = [
      {
        name: 'w',
        source: '/w',
        config: windowed,
        files: [],
        hasInstallScript: false,
        interpreters: [],
      },
    ];
    const run = await RunBundleSession.install(shell, bundles, () => undefined);
    const seen: unknown[] = [];
    const tool = (name: string) =>
      defineTool({
        name,
        description: name,
        effect: 'read',
        input: z.object({ command: z.string() }),
        run: async ({ command }) => {
          seen.push(command);
          await shell.exec(`echo ${name}`);
          return command;
        },
        observe: (output) => output,
      });
    const [execute, other] = withBundleState([tool('execute'), tool('other')], run);
    await execute?.invoke({ command: 'edit 1:1\nx\nend_of_edit' }, { callId: 'c1' });
    await other?.invoke({ command: 'edit 1:1\nx\nend_of_edit' }, { callId: 'c2' });
    expect(seen).toEqual(["edit 1:1 << 'end_of_edit'\nx\nend_of_edit", 'edit 1:1\nx\nend_of_edit']);
    expect(run.takeState(['c1'])).toEqual({ after: 'execute' });
    expect(run.takeState(['c2'])).toEqual({ after: 'other' });
    expect(withBundleState([tool('execute')], undefined)[0]?.name).toBe('execute');
  });

  it('ends the run as an environment error naming the bundle whose interpreter is missing', async () => {
    const config = parseBundleConfig('tools:\n  hello: {}\n', 'config.yaml');
    const old = {
      name: 'old',
      source: '/old',
      config,
      files: [],
      hasInstallScript: false,
      interpreters: [{ file: 'bin/hello', line: '/usr/bin/env python2.4', program: 'python2.4' }],
    };
    const sandbox = strictMock<Sandbox>({
      exec: () =>
        Promise.resolve({
          exitCode: 0,
          output: 'python2.4\n',
          timedOut: false,
          truncated: false,
          outputBytes: 0,
          elapsedMs: 0,
        }),
    });
    const error = await new RunToolBundles([old]).open(sandbox).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "SWE-agent bundle 'old': bin/hello needs python2.4 (#!/usr/bin/env python2.4), which the sandbox does not have",
    );
    expect(exitReasonForError(error)).toBe('exit_environment_error');
    expect(await new RunToolBundles([]).open(sandbox)).toBeNull();
  });
});
