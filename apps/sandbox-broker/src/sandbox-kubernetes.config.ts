import { documented } from '@caravel/config';
import { z } from 'zod';

/** A Kubernetes object name (DNS-1123 label). */
const objectName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a lowercase DNS label (a-z, 0-9, -)');

/** The `kubernetes` provider's keys (read only when SANDBOX_PROVIDER=kubernetes). */
export const kubernetesSandboxEnvSchema = z.object({
  SANDBOX_K8S_NAMESPACE: documented(objectName.default('caravel-sandboxes'), {
    description:
      "The namespace sandbox pods are created in (kubernetes provider; the broker's Role must be there)",
  }),
  SANDBOX_K8S_IMAGE: documented(z.string().min(1).default('caravel/sandbox:bookworm'), {
    description:
      'The image of sandbox pods (kubernetes provider; it must have bash, git and coreutils)',
  }),
  SANDBOX_K8S_RUNTIME_CLASS: documented(objectName.optional(), {
    description:
      'A RuntimeClass for sandbox pods, e.g. gvisor (kubernetes provider; default: the cluster default runtime)',
    example: 'gvisor',
  }),
  SANDBOX_K8S_CLAIM: documented(objectName.default('caravel-sandboxes'), {
    description:
      'The PersistentVolumeClaim mounted at SANDBOX_ROOT, which sandbox pods mount their workspace and home from (kubernetes provider; ReadWriteMany, or one node)',
  }),
  SANDBOX_K8S_CLAIM_SUBPATH: documented(z.string().default(''), {
    description:
      "Where SANDBOX_ROOT sits inside that claim (kubernetes provider; default: the claim's root)",
  }),
  SANDBOX_K8S_OWNER: documented(objectName.default('caravel'), {
    description:
      "The owner label of this broker's sandbox pods; at start it deletes its pods whose sandbox is gone (kubernetes provider)",
  }),
  SANDBOX_K8S_PROXY_URL: documented(z.url().optional(), {
    description:
      "The egress proxy as sandbox pods reach it, put in their proxy environment (kubernetes provider; absent: no proxy settings, and the chart's NetworkPolicy leaves pods no way out)",
    example: 'http://caravel-sandbox-broker:3128',
  }),
  SANDBOX_K8S_EGRESS_PORT: documented(z.coerce.number().int().min(1).max(65535).default(3128), {
    description:
      "The port the broker's egress relay listens on for sandbox pods (kubernetes provider, with SANDBOX_K8S_PROXY_URL and SANDBOX_EGRESS=proxy): each connection goes to the proxy of the sandbox whose pod address it comes from",
  }),
  SANDBOX_K8S_KUBECONFIG: documented(z.string().min(1).optional(), {
    description:
      "A kubeconfig file for the API server (kubernetes provider; default: the pod's ServiceAccount, or ~/.kube/config)",
  }),
});

/** The `kubernetes` provider's settings, typed. */
export interface KubernetesSandboxConfig {
  namespace: string;
  image: string;
  runtimeClassName?: string;
  claimName: string;
  claimSubPath: string;
  owner: string;
  proxyUrl?: string;
  /** Where the egress relay listens (used with `proxyUrl`). */
  egressPort: number;
  kubeconfig?: string;
}

export function kubernetesSandboxConfigOf(
  env: z.output<typeof kubernetesSandboxEnvSchema>,
): KubernetesSandboxConfig {
  return {
    namespace: env.SANDBOX_K8S_NAMESPACE,
    image: env.SANDBOX_K8S_IMAGE,
    ...(env.SANDBOX_K8S_RUNTIME_CLASS ? { runtimeClassName: env.SANDBOX_K8S_RUNTIME_CLASS } : {}),
    claimName: env.SANDBOX_K8S_CLAIM,
    claimSubPath: env.SANDBOX_K8S_CLAIM_SUBPATH,
    owner: env.SANDBOX_K8S_OWNER,
    ...(env.SANDBOX_K8S_PROXY_URL ? { proxyUrl: env.SANDBOX_K8S_PROXY_URL } : {}),
    egressPort: env.SANDBOX_K8S_EGRESS_PORT,
    ...(env.SANDBOX_K8S_KUBECONFIG ? { kubeconfig: env.SANDBOX_K8S_KUBECONFIG } : {}),
  };
}
