// `@caravel/sandbox/kubernetes`: the Kubernetes provider, apart from the package's main entry so
// that loading the sandbox library does not load `@kubernetes/client-node` (a second or more of
// every start); the broker imports it only when SANDBOX_PROVIDER=kubernetes.
export { KubeConfig } from '@kubernetes/client-node';
export {
  DEFAULT_KUBERNETES_IMAGE,
  KubernetesSandboxProvider,
  type KubernetesProviderOptions,
} from './providers/kubernetes/kubernetes.provider.js';
export {
  POD_HOME,
  POD_LABELS,
  POD_WORKDIR,
  SANDBOX_CONTAINER,
  SANDBOX_ID_ANNOTATION,
  ownerSelector,
  podName,
  sandboxPod,
  type SandboxPodInput,
} from './providers/kubernetes/kubernetes-pod-spec.js';
export {
  kubernetesEgressEnvironment,
  type KubernetesEgress,
} from './providers/kubernetes/kubernetes-egress.js';
export { DEFAULT_POD_TIMING, type PodTiming } from './providers/kubernetes/kubernetes-pods.js';
export {
  KubernetesEgressRelay,
  type EgressRelayListen,
  type PodAddressBook,
} from './providers/kubernetes/kubernetes-egress-relay.js';
