import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import type { ExecOptions, ExecResult, Sandbox } from '../sandbox.types.js';
import { ToolSandboxAdapter } from './tool-sandbox.adapter.js';

/** A sandbox whose only working call is `exec`: it streams two pieces, then answers. */
function streamingSandbox(calls: { command: string; options: ExecOptions | undefined }[]): Sandbox {
  const exec = (command: string, options?: ExecOptions): Promise<ExecResult> => {
    calls.push({ command, options });
    options?.onOutput?.('half ');
    options?.onOutput?.('done\n');
    return Promise.resolve({
      exitCode: 0,
      output: 'half done\n',
      timedOut: false,
      truncated: false,
      outputBytes: 10,
      elapsedMs: 1,
    });
  };
  return strictMock<Sandbox>({ exec }, 'sandbox');
}

describe('ToolSandboxAdapter', () => {
  it("hands the agent's command output to the live listener while it runs", async () => {
    const calls: { command: string; options: ExecOptions | undefined }[] = [];
    const seen: string[] = [];
    const adapter = new ToolSandboxAdapter(streamingSandbox(calls), 'HEAD', {
      onExecOutput: (text) => seen.push(text),
    });
    const result = await adapter.exec({ command: 'make', timeoutMs: 5_000, cwd: 'sub dir' });
    expect(result).toEqual({
      exitCode: 0,
      output: 'half done\n',
      timedOut: false,
      truncated: false,
    });
    expect(seen).toEqual(['half ', 'done\n']);
    expect(calls[0]?.command).toBe("cd 'sub dir' && make");
    expect(calls[0]?.options?.timeoutMs).toBe(5_000);
  });

  it('asks for no streaming when nobody listens', async () => {
    const calls: { command: string; options: ExecOptions | undefined }[] = [];
    await new ToolSandboxAdapter(streamingSandbox(calls)).exec({ command: 'ls', timeoutMs: 1_000 });
    expect(calls[0]?.options).toEqual({ timeoutMs: 1_000 });
  });
});
