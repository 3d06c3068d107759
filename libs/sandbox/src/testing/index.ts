// Test support for sandboxes: `@caravel/sandbox/testing`, for specs and end-to-end tests only
// (production code may not import it: eslint.config.js). Probes of what a sandbox can reach and
// leak, a bare remote seeded with commits, and a fake remote sandbox service over HTTP.
export {
  filesUnder,
  listenOnLoopback,
  probeHostPort,
  secretPlaces,
  startEgressTargets,
  tokenLeaks,
  type EgressTargets,
  type RunInSandbox,
  type SecretPlaces,
} from './egress-probes.js';
export { seedRemote } from './seed-remote.js';
export {
  startFakeSandboxService,
  type FakeSandboxService,
  type FakeSandboxServiceOptions,
} from '../providers/remote/testing/fake-sandbox-service.js';
export {
  startFakeKubernetes,
  type FakeFault,
  type FakeKubernetes,
  type FakeKubernetesOptions,
  type FakeVerb,
} from './fake-kubernetes.js';
export { EXEC_PROTOCOLS, execStatus, type ExecProtocol } from './fake-kubelet.js';
