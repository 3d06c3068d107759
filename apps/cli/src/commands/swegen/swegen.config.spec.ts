import { DEFAULT_EGRESS_ALLOWLIST } from '@caravel/sandbox';
import { describe, expect, it } from '@jest/globals';
import { buildEgressOf, parseSwegenEnv } from './swegen.config.js';
import { runSwegen } from './swegen.command.js';

describe("caravel swegen's build egress settings", () => {
  it('default to the package registries and no mirror', () => {
    expect(buildEgressOf(parseSwegenEnv({}))).toEqual({
      allowlist: DEFAULT_EGRESS_ALLOWLIST,
      upstreamOverrides: {},
    });
  });

  it("read the agent sandboxes' allowlist and mirrors, none meaning no host", () => {
    const env = parseSwegenEnv({
      SANDBOX_EGRESS_ALLOWLIST: 'registry.npmjs.org, *.corp.example',
      SANDBOX_EGRESS_MIRRORS: 'registry.npmjs.org=https://npm.mirror.internal',
    });
    expect(buildEgressOf(env)).toEqual({
      allowlist: ['registry.npmjs.org', '*.corp.example'],
      upstreamOverrides: { 'registry.npmjs.org': 'https://npm.mirror.internal' },
    });
    expect(buildEgressOf(parseSwegenEnv({ SANDBOX_EGRESS_ALLOWLIST: 'none' })).allowlist).toEqual(
      [],
    );
  });

  it('refuse a bad entry in one line naming the key, before any build', async () => {
    const err: string[] = [];
    const status = await runSwegen(
      ['validate', '/nonexistent/tasks'],
      {
        SANDBOX_EGRESS_MIRRORS: 'registry.npmjs.org=ftp://mirror',
        SANDBOX_EGRESS_ALLOWLIST: 'a b',
      },
      { out: () => true, err: (line) => err.push(line) > 0 },
    );
    expect(status).toBe(1);
    expect(err).toEqual([
      'caravel swegen: invalid environment: SANDBOX_EGRESS_ALLOWLIST: "a b" is not a host or ' +
        '*.suffix; SANDBOX_EGRESS_MIRRORS: "registry.npmjs.org=ftp://mirror" is not host=http(s)://url',
    ]);
  });

  it("are named in the help of each subcommand that builds a task's environment", async () => {
    for (const sub of ['create', 'validate', 'farm', 'analyze']) {
      const out: string[] = [];
      await runSwegen([sub, '--help'], {}, { out: (line) => out.push(line) > 0, err: () => true });
      expect(out.join('\n')).toContain('SANDBOX_EGRESS_ALLOWLIST');
    }
  });
});
