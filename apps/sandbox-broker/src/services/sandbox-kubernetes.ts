import { resolve } from 'node:path';
import {
  KubeConfig,
  KubernetesSandboxProvider,
  type PodAddressBook,
} from '@caravel/sandbox/kubernetes';
export { KubernetesEgressRelay } from '@caravel/sandbox/kubernetes';
import type { SandboxDefaults, SandboxLogger } from '@caravel/sandbox';
import type { KubernetesSandboxConfig } from '../sandbox-kubernetes.config.js';

/**
 * The broker's `kubernetes` provider: pods in the configured namespace, their workspace and home
 * mounted from the claim the broker's SANDBOX_ROOT is, the API reached with the pod's
 * ServiceAccount (or a kubeconfig). Loaded by `WorkspaceHost.open` only for this provider.
 */
export function kubernetesProvider(
  settings: KubernetesSandboxConfig,
  rootDir: string,
  defaults: SandboxDefaults,
  logger: SandboxLogger,
  egress: { gitHost: string; apiHost: string },
  podAddresses?: PodAddressBook,
): KubernetesSandboxProvider {
  const kubeConfig = new KubeConfig();
  if (settings.kubeconfig) kubeConfig.loadFromFile(resolve(settings.kubeconfig));
  else kubeConfig.loadFromDefault();
  return new KubernetesSandboxProvider({
    rootDir,
    claimName: settings.claimName,
    claimSubPath: settings.claimSubPath,
    namespace: settings.namespace,
    kubeConfig,
    image: settings.image,
    owner: settings.owner,
    ...(settings.runtimeClassName ? { runtimeClassName: settings.runtimeClassName } : {}),
    ...(settings.proxyUrl ? { egress: { proxyUrl: settings.proxyUrl, ...egress } } : {}),
    ...(podAddresses ? { podAddresses } : {}),
    defaults,
    logger,
  });
}
