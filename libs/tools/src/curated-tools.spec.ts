import { describe, expect, it } from '@jest/globals';

import { chatTools, curatedTools, endsRun, readOnlySubset } from './curated-tools.js';
import { toLangChainTools } from './core/langchain-tool.js';
import { DirectoryToolSandbox } from './testing/directory-tool-sandbox.js';
import { InMemoryScm, RecordingReplyChannel } from './testing/fake-ports.js';

const sandbox = new DirectoryToolSandbox('/nonexistent-caravel-root');
const channel = new RecordingReplyChannel();

describe('curated tool sets', () => {
  it('gives the main agent the file, shell, reply, PR and control tools', () => {
    const names = curatedTools({ sandbox, channel, scm: new InMemoryScm() }).map((t) => t.name);
    expect(names).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'ls',
      'glob',
      'grep',
      'execute',
      'reply_to_user',
      'commit_and_open_pr',
      'submit',
      'exit_forfeit',
      'no_op',
      'confirming_completion',
    ]);
  });

  it('gives the chat agent no tool that writes files, runs a shell, publishes or submits', () => {
    const tools = chatTools({ sandbox, channel });
    expect(tools.map((t) => t.name)).toEqual([
      'read_file',
      'ls',
      'glob',
      'grep',
      'reply_to_user',
      'no_op',
      'confirming_completion',
    ]);
    for (const tool of tools) expect(['read', 'reply', 'control']).toContain(tool.effect);
  });

  it('filters any list down to its read-only subset', () => {
    const main = curatedTools({ sandbox, channel, scm: new InMemoryScm() });
    const subset = readOnlySubset(main).map((t) => t.name);
    for (const name of ['write_file', 'edit_file', 'execute', 'commit_and_open_pr', 'submit']) {
      expect(subset).not.toContain(name);
    }
  });

  it('marks submit and exit_forfeit, and only those, as ending the run', () => {
    const main = curatedTools({ sandbox, channel, scm: new InMemoryScm() });
    expect(main.filter(endsRun).map((t) => t.name)).toEqual(['submit', 'exit_forfeit']);
  });

  it('has unique names and adapts every tool for LangChain', () => {
    const main = curatedTools({ sandbox, channel, scm: new InMemoryScm() });
    expect(new Set(main.map((t) => t.name)).size).toBe(main.length);
    expect(toLangChainTools(main).map((t) => t.name)).toEqual(main.map((t) => t.name));
  });
});
