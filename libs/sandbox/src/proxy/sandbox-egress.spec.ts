import { bwrapArguments, type BwrapLayout } from '../providers/bwrap-arguments.js';
import { sandboxEgressEnvironment } from './sandbox-egress.js';

const layout: BwrapLayout = {
  systemMounts: [{ kind: 'ro-bind', path: '/usr' }],
  hostWorkspace: '/srv/s/workspace',
  hostHome: '/srv/s/home',
  innerWorkspace: '/workspace',
  innerHome: '/home/agent',
  sandboxUid: 1000,
  sandboxGid: 1000,
  hostname: 'caravel-sandbox',
  bashPath: '/bin/bash',
};

describe('sandbox egress wiring', () => {
  it('keeps the default command line free of any way out', () => {
    const args = bwrapArguments(layout, ['driver']);
    expect(args).not.toContain('--share-net');
    expect(args).not.toContain('/run/caravel');
    expect(args.slice(-3)).toEqual(['--', '/bin/bash', 'driver']);
  });

  it('binds the socket directory and runs the driver under the pid-1 supervisor, net still unshared', () => {
    const args = bwrapArguments(
      {
        ...layout,
        egress: { hostSocketDir: '/srv/egress/s1', socatPath: '/usr/bin/socat', port: 3128 },
      },
      ['driver'],
    );
    expect(args).toContain('--unshare-all');
    expect(args).not.toContain('--share-net');
    const bind = args.indexOf('/srv/egress/s1');
    expect(args.slice(bind - 1, bind + 2)).toEqual(['--ro-bind', '/srv/egress/s1', '/run/caravel']);
    const separator = args.indexOf('--');
    expect(args[separator - 1]).toBe('--as-pid-1');
    expect(args.slice(-6)).toEqual([
      'caravel-egress',
      '/usr/bin/socat',
      '3128',
      '/run/caravel/egress.sock',
      '/bin/bash',
      'driver',
    ]);
  });

  it('points tools at the proxy with only the placeholder as a credential', () => {
    const env = sandboxEgressEnvironment({ gitHost: 'github.com', apiHost: 'api.github.com' });
    expect(env['https_proxy']).toBe('http://127.0.0.1:3128');
    expect(env['GH_TOKEN']).toBe('caravel-placeholder');
    const count = Number(env['GIT_CONFIG_COUNT']);
    const config = Array.from({ length: count }, (_, i) => [
      env[`GIT_CONFIG_KEY_${i}`],
      env[`GIT_CONFIG_VALUE_${i}`],
    ]);
    expect(config).toContainEqual(['url.http://github.com/.insteadOf', 'https://github.com/']);
    expect(config).toContainEqual(['http.proxy', 'http://127.0.0.1:3128']);
  });
});
