import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRunBundleOptions, runBundlesFor, runBundleSelection } from './run-bundles.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('caravel run --tools-dir / --bundle', () => {
  it('takes no bundles when neither option is given', async () => {
    await expect(checkRunBundleOptions({}, 'local')).resolves.toBeUndefined();
    await expect(runBundlesFor({}, '/nowhere')).resolves.toBeUndefined();
  });

  it('refuses --bundle without --tools-dir, and --tools-dir without a bundle', async () => {
    await expect(checkRunBundleOptions({ bundles: ['windowed'] }, 'bwrap')).rejects.toThrow(
      '--bundle needs --tools-dir (a folder of bundles or a SWE-agent checkout)',
    );
    await expect(checkRunBundleOptions({ toolsDir: '.', bundles: [] }, 'bwrap')).rejects.toThrow(
      '--tools-dir needs --bundle NAME (repeatable): the bundles to install, in order',
    );
  });

  it('names a tools folder that does not exist, and refuses a sandbox without binds', async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-run-bundles-'));
    const missing = join(dir, 'SWE-agent');
    await expect(
      checkRunBundleOptions({ toolsDir: missing, bundles: ['windowed'] }, 'bwrap'),
    ).rejects.toThrow(`--tools-dir ${missing}: no such directory`);
    await expect(
      checkRunBundleOptions({ toolsDir: dir, bundles: ['windowed'] }, 'local'),
    ).rejects.toThrow('--tools-dir needs the bwrap sandbox (SANDBOX_PROVIDER is local)');
    await expect(
      checkRunBundleOptions({ toolsDir: dir, bundles: ['windowed'] }, 'bwrap'),
    ).resolves.toBeUndefined();
  });

  it('names a bundle the folder does not have, staging nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-run-bundles-'));
    await expect(runBundlesFor({ toolsDir: dir, bundles: ['windowed'] }, dir)).rejects.toThrow(
      `no SWE-agent bundle 'windowed' in ${dir}`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it("takes the command line's bundles over the settings', naming whichever is at fault", async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-run-bundles-'));
    const settings = { toolsDir: join(dir, 'settings'), bundles: ['registry'] };
    const flags = { toolsDir: dir, bundles: ['windowed'] };
    await expect(runBundleSelection(flags, settings, 'bwrap')).resolves.toEqual(flags);
    await expect(runBundleSelection({}, settings, 'bwrap')).rejects.toThrow(
      `SWE_AGENT_TOOLS_DIR ${join(dir, 'settings')}: no such directory`,
    );
    await expect(runBundleSelection({}, { bundles: [] }, 'bwrap')).resolves.toEqual({
      bundles: [],
    });
    await expect(runBundleSelection({}, undefined, 'local')).resolves.toEqual({});
  });
});
