import type { AgentsFile, AgentsFileFinder } from '@caravel/middleware';
import type { Sandbox } from '@caravel/sandbox';
import { posix } from 'node:path';

/** Finds the AGENTS.md files of a path's directory and every parent up to the repository root. */
export class SandboxAgentsFileFinder implements AgentsFileFinder {
  constructor(private readonly sandbox: Sandbox) {}

  async findAgentsFiles(path: string): Promise<AgentsFile[]> {
    const relative = posix.normalize(path.replace(/^\/+/, '').replace(/^workspace\//, ''));
    const found: AgentsFile[] = [];
    let dir = posix.dirname(relative);
    for (;;) {
      const candidate = dir === '.' ? 'AGENTS.md' : `${dir}/AGENTS.md`;
      const content = await this.sandbox.readFile(candidate).catch(() => undefined);
      if (content !== undefined) found.push({ path: candidate, content });
      if (dir === '.' || dir === '/' || dir === '') break;
      dir = posix.dirname(dir);
    }
    return found;
  }
}
