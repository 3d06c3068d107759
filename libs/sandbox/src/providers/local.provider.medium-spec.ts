import { LocalSandboxProvider } from './local.provider.js';
import { describeSandboxBehaviour } from '../testing/sandbox-behaviour.suite.js';

describeSandboxBehaviour({
  name: 'local',
  isolated: false,
  skipReason: null,
  make: (rootDir) => new LocalSandboxProvider({ rootDir, logger: { warn: () => undefined } }),
});
