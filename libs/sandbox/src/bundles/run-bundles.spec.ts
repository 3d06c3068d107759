import { afterEach, describe, expect, it } from '@jest/globals';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecResult } from '../sandbox.types.js';
import { parseBundleConfig } from './bundle-config.js';
import type { BundleShell } from './bundle-install.js';
import type { ToolBundle } from './bundle-load.js';
import { bundleCommandsPrompt } from './bundle-prompt.js';
import { prepareRunBundles, RunBundleSession } from './run-bundles.js';

const WINDOWED = `tools:
  open:
    signature: 'open "<path>" [<line_number>]'
    docstring: opens the file at the given path
    arguments:
      - { name: path, type: string, description: the file, required: true }
      - { name: line_number, type: integer, description: the line, required: false }
  edit:
    signature: |
      edit <start_line>:<end_line>
      <replacement_text>
      end_of_edit
    docstring: replaces lines of the open file
    end_name: end_of_edit
    arguments: []
  _hidden:
    docstring: a helper
state_command: _state
`;

function bundle(name: string, config: string, program = 'python3'): ToolBundle {
  return {
    name,
    source: `/nowhere/${name}`,
    config: parseBundleConfig(config, `${name}/config.yaml`),
    files: [],
    hasInstallScript: false,
    interpreters: [{ file: 'bin/open', line: `/usr/bin/env ${program}`, program }],
  };
}

function result(output: string, exitCode = 0): ExecResult {
  return { exitCode, output, timedOut: false, truncated: false, outputBytes: 0, elapsedMs: 0 };
}

/** A session that answers each command from `answer`; every command is kept. */
function session(answer: (command: string) => ExecResult): BundleShell & { commands: string[] } {
  const commands: string[] = [];
  return {
    commands,
    exec: (command) => {
      commands.push(command);
      return Promise.resolve(answer(command));
    },
  };
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("a run's bundles", () => {
  it('refuses a bundle whose interpreter the sandbox lacks, in one line naming it, and runs nothing else', async () => {
    const shell = session((command) =>
      command.includes('command -v') ? result('python2.4\n') : result(''),
    );
    const old = bundle('old', WINDOWED, 'python2.4');
    await expect(RunBundleSession.install(shell, [old], () => undefined)).rejects.toThrow(
      "SWE-agent bundle 'old': bin/open needs python2.4 (#!/usr/bin/env python2.4), which the sandbox does not have",
    );
    expect(shell.commands).toHaveLength(1);
  });

  it("keeps the state after each call and gives a step its last call's state, once", async () => {
    let reads = 0;
    const shell = session((command) => {
      if (command.startsWith('cat /root/state.json')) {
        reads += 1;
        return result(JSON.stringify({ open_file: `/workspace/f${reads}.py` }));
      }
      return result('');
    });
    const warnings: string[] = [];
    const run = await RunBundleSession.install(shell, [bundle('windowed', WINDOWED)], (w) =>
      warnings.push(w),
    );
    expect(shell.commands.at(-1)).toBe("cd '/workspace'");
    expect(run.multilineCommands).toEqual([{ name: 'edit', endName: 'end_of_edit' }]);
    await run.captureAfter('call-a');
    await run.captureAfter('call-b');
    expect(shell.commands.slice(-2)).toEqual(['_state', 'cat /root/state.json']);
    expect(run.takeState(['call-a', 'call-b'])).toEqual({ open_file: '/workspace/f2.py' });
    expect(run.takeState(['call-a', 'call-b'])).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('warns, as SWE-agent does, when a state command fails or the state is not an object', async () => {
    const shell = session((command) =>
      command === '_state' ? result('Traceback: boom', 1) : result('[1, 2]'),
    );
    const warnings: string[] = [];
    const run = await RunBundleSession.install(shell, [bundle('windowed', WINDOWED)], (w) =>
      warnings.push(w),
    );
    await run.captureAfter('call-a');
    expect(run.takeState(['call-a'])).toBeUndefined();
    expect(warnings).toEqual([
      'bundle state: _state (windowed) failed: Traceback: boom',
      'bundle state: /root/state.json is not a JSON object',
    ]);
  });

  it("documents the commands as SWE-agent does, without helpers, with the end line's heredoc", () => {
    const prompt = bundleCommandsPrompt([bundle('windowed', WINDOWED)]);
    expect(prompt).toContain(
      [
        'open:',
        '  docstring: opens the file at the given path',
        '  signature: open "<path>" [<line_number>]',
        '  arguments:',
        '    - path (string) [required]: the file',
        '    - line_number (integer) [optional]: the line',
      ].join('\n'),
    );
    expect(prompt).toContain('  signature: edit <start_line>:<end_line>\n    <replacement_text>');
    expect(prompt).toContain('(e.g. `edit …`, the lines, then `end_of_edit`)');
    expect(prompt).not.toContain('_hidden');
    expect(bundleCommandsPrompt([bundle('state-only', 'tools: {}\nstate_command: _state\n')])).toBe(
      '',
    );
  });

  it('stages a read-only copy and binds it at /root/tools, with the home at /root', async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-run-bundles-'));
    mkdirSync(join(dir, 'tools/windowed/bin'), { recursive: true });
    writeFileSync(join(dir, 'tools/windowed/config.yaml'), WINDOWED);
    writeFileSync(join(dir, 'tools/windowed/bin/open'), '#!/usr/bin/env python3\n');
    const staged = join(dir, 'staged');
    const prepared = await prepareRunBundles(dir, ['windowed'], staged);
    expect(prepared.bundles.map((b) => b.name)).toEqual(['windowed']);
    expect(prepared.binds).toEqual([
      { path: '/root', of: 'home' },
      { path: '/root/tools', hostDir: staged },
    ]);
    expect(readFileSync(join(staged, 'windowed/bin/open'), 'utf8')).toContain('python3');
    expect(lstatSync(join(staged, 'windowed/bin/open')).mode & 0o777).toBe(0o555);
  });
});
