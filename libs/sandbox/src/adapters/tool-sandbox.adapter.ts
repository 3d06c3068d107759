import { HOOKLESS_GIT_ENV } from '../providers/one-shot.js';
import type { Sandbox } from '../sandbox.types.js';
import { shellQuote } from '../session/request-encoder.js';
import type {
  EditOutcome,
  EditRequest,
  ExecRequest,
  ExecResult,
  FileEntry,
  GlobRequest,
  GlobResult,
  GrepRequest,
  GrepResult,
  ToolSandbox,
  WriteOutcome,
} from '@caravel/tools';

function lineNumbers(content: string, needle: string): number[] {
  const lines: number[] = [];
  let index = content.indexOf(needle);
  while (index !== -1) {
    lines.push(content.slice(0, index).split('\n').length);
    index = content.indexOf(needle, index + needle.length);
  }
  return lines;
}

/** Options of {@link ToolSandboxAdapter}. */
export interface ToolSandboxOptions {
  /**
   * Sees the output of the agent's commands while they run (progress for a live view); the
   * tool's observation is still the command's capped result.
   */
  readonly onExecOutput?: (text: string) => void;
}

/** The agent's tools see the thread's sandbox through this adapter (the tools lib's port). */
export class ToolSandboxAdapter implements ToolSandbox {
  /** `baseRef`: what the diff is taken against (the commit the run started from). */
  constructor(
    private readonly sandbox: Sandbox,
    private readonly baseRef = 'HEAD',
    private readonly options: ToolSandboxOptions = {},
  ) {}

  async exec(request: ExecRequest): Promise<ExecResult> {
    const command = request.cwd
      ? `cd ${shellQuote(request.cwd)} && ${request.command}`
      : request.command;
    const { onExecOutput } = this.options;
    const result = await this.sandbox.exec(command, {
      timeoutMs: request.timeoutMs,
      ...(onExecOutput ? { onOutput: onExecOutput } : {}),
    });
    return {
      exitCode: result.timedOut ? null : result.exitCode,
      output: result.output,
      timedOut: result.timedOut,
      truncated: result.truncated,
    };
  }

  readFile(path: string): Promise<string> {
    return this.sandbox.readFile(path);
  }

  async writeFile(path: string, content: string): Promise<WriteOutcome> {
    const existed = await this.sandbox.readFile(path).then(
      () => true,
      () => false,
    );
    await this.sandbox.writeFile(path, content);
    return { created: !existed };
  }

  async editFile(request: EditRequest): Promise<EditOutcome> {
    const content = await this.sandbox.readFile(request.path);
    const lines = lineNumbers(content, request.oldText);
    if (lines.length === 0) return { status: 'no-match' };
    if (lines.length > 1 && !request.replaceAll) {
      return { status: 'ambiguous', occurrences: lines.length, lines };
    }
    await this.sandbox.editFile(request.path, request.oldText, request.newText, {
      replaceAll: request.replaceAll,
    });
    return { status: 'replaced', occurrences: lines.length, lines };
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    const listed = await this.sandbox.listFiles(path);
    return listed.entries.map((entry) => ({
      name: entry.path.split('/').pop() ?? entry.path,
      type: entry.type,
      size: entry.size,
    }));
  }

  async glob(request: GlobRequest): Promise<GlobResult> {
    const pattern = request.path
      ? `${request.path.replace(/\/$/, '')}/${request.pattern}`
      : request.pattern;
    const paths = await this.sandbox.glob(pattern, { maxResults: request.maxResults + 1 });
    return {
      paths: paths.slice(0, request.maxResults),
      truncated: paths.length > request.maxResults,
    };
  }

  async grep(request: GrepRequest): Promise<GrepResult> {
    const found = await this.sandbox.grep(request.pattern, {
      regex: request.regex,
      ignoreCase: request.ignoreCase,
      maxMatches: request.maxMatches,
      ...(request.path ? { path: request.path } : {}),
      ...(request.include ? { include: request.include } : {}),
    });
    return { matches: [...found.matches], truncated: found.truncated };
  }

  /** Everything since the run's base commit, committed or not, new files included. */
  async diff(): Promise<string> {
    const command = `git add -A && git diff --cached --no-color --no-ext-diff --no-textconv ${shellQuote(this.baseRef)}`;
    const result = await this.sandbox.exec(command, { timeoutMs: 60_000, env: HOOKLESS_GIT_ENV });
    return result.exitCode === 0 ? result.output : '';
  }
}
