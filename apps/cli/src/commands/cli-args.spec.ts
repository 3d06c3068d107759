import { bundleOptions, isThreadId, parseCommand, portOption, UsageError } from './cli-args.js';

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('no usage error');
}

describe('caravel command lines', () => {
  it('refuses an unknown option, naming it and the known ones', () => {
    const error = usageError(() => parseCommand('start', ['--prot', '3302']));
    expect(error.message).toBe(
      "unknown option '--prot'; known options: --data-dir, --port, --help",
    );
    expect(error.render('USAGE')).toMatch(
      /^caravel start: unknown option '--prot'.*\n\nUsage: caravel start/,
    );
  });

  it('says which option lacks its value', () => {
    expect(usageError(() => parseCommand('run', ['--repo'])).message).toBe(
      '--repo needs a value (--repo VALUE or --repo=VALUE)',
    );
  });

  it('reads options, positionals and -h', () => {
    expect(parseCommand('run', ['--repo', '.', 'fix', 'it', '--model=gpt-5'])).toEqual({
      positionals: ['fix', 'it'],
      values: { repo: '.', model: 'gpt-5' },
      help: false,
    });
    expect(parseCommand('attach', ['-h']).help).toBe(true);
  });

  it('reads a repeatable option as one comma-separated value (replay --bundle)', () => {
    const parsed = parseCommand('replay', [
      'run.traj',
      '--tools-dir',
      '/opt/SWE-agent',
      '--bundle',
      'registry',
      '--bundle=windowed',
    ]);
    expect(parsed.values).toEqual({ 'tools-dir': '/opt/SWE-agent', bundle: 'registry,windowed' });
  });

  it('reads run --tools-dir and a repeated --bundle', () => {
    const parsed = parseCommand('run', [
      '--repo',
      '.',
      '--tools-dir',
      'tools',
      '--bundle',
      'registry',
      '--bundle',
      'windowed',
      'fix it',
    ]);
    expect(parsed.values).toEqual({ repo: '.', 'tools-dir': 'tools', bundle: 'registry,windowed' });
    expect(bundleOptions(parsed.values)).toEqual({
      toolsDir: 'tools',
      bundles: ['registry', 'windowed'],
    });
    expect(bundleOptions({ repo: '.' })).toEqual({});
    expect(usageError(() => parseCommand('run', ['--bundle'])).message).toBe(
      '--bundle needs a value (--bundle VALUE or --bundle=VALUE)',
    );
  });

  it('takes a port from 0 to 65535 and names the option and value otherwise', () => {
    expect(portOption('start', '4000')).toBe(4000);
    expect(portOption('start', '0')).toBe(0);
    expect(portOption('start', undefined)).toBeUndefined();
    for (const bad of ['abc', '70000', '-1', '30.5', '']) {
      expect(usageError(() => portOption('start', bad)).message).toBe(
        `--port must be a port number (0-65535), not '${bad}'`,
      );
    }
  });

  it('knows a thread id from anything else', () => {
    expect(isThreadId('5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e')).toBe(true);
    expect(isThreadId('not-a-uuid')).toBe(false);
    expect(isThreadId('5f2b7c1e')).toBe(false);
  });
});
