import type { WorkdirFiles } from './files/workdir-files.js';
import type * as Port from './sandbox.types.js';
import type { BashSession } from './session/bash-session.js';

const PING_TIMEOUT_MS = 10_000;

/** Adds what the host saw during a command (a limit hit) to its result; see `LimitWatch`. */
export type ResultAnnotator = (result: Port.ExecResult) => Promise<Port.ExecResult>;

/**
 * A sandbox made of a persistent bash session and host-side file operations on its workdir:
 * what `local` and `bwrap` have in common. A remote provider would implement `Sandbox` over RPC.
 */
export class SessionSandbox implements Port.Sandbox {
  constructor(
    readonly id: string,
    readonly provider: Port.SandboxProviderName,
    readonly workdir: string,
    private readonly session: BashSession,
    private readonly files: WorkdirFiles,
    private readonly onClose: (sandbox: SessionSandbox) => void,
    private readonly annotate?: ResultAnnotator,
  ) {}

  async ping(): Promise<boolean> {
    if (!this.session.alive) return false;
    try {
      const result = await this.session.run('true', { timeoutMs: PING_TIMEOUT_MS });
      return result.exitCode === 0;
    } catch {
      return false;
    }
  }

  async exec(command: string, options?: Port.ExecOptions): Promise<Port.ExecResult> {
    const result = await this.session.run(command, options);
    return this.annotate ? this.annotate(result) : result;
  }

  readFile(path: string): Promise<string> {
    return this.files.readFile(path);
  }

  writeFile(path: string, content: string | Uint8Array): Promise<void> {
    return this.files.writeFile(path, content);
  }

  editFile(
    path: string,
    oldText: string,
    newText: string,
    options?: Port.EditFileOptions,
  ): Promise<{ replacements: number }> {
    return this.files.editFile(path, oldText, newText, options);
  }

  listFiles(path?: string, options?: Port.ListFilesOptions): Promise<Port.ListFilesResult> {
    return this.files.listFiles(path, options);
  }

  glob(pattern: string, options?: { maxResults?: number }): Promise<string[]> {
    return this.files.glob(pattern, options);
  }

  grep(pattern: string, options?: Port.GrepOptions): Promise<Port.GrepResult> {
    return this.files.grep(pattern, options);
  }

  async close(): Promise<void> {
    this.onClose(this);
    await this.session.close();
    await this.files.close();
  }
}
