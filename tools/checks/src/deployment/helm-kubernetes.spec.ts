import { testEnvironment } from '@caravel/testing';
import { helmForChecks, runHelm } from './helm-binary.js';
import { at, CHART, find, ofKind, RELEASE, renderChart, selects } from './helm-render.js';

// The chart with sandboxes as pods (ci/kubernetes-values.yaml): what docs/deployment.md promises
// of the kubernetes provider's RBAC, token and network policy, on the rendered objects.

const VALUES = `${CHART}/ci/kubernetes-values.yaml`;
const name = (component: string): string => `${RELEASE}-caravel-${component}`;
const helm = helmForChecks(testEnvironment.CI);
const describeWithHelm = helm ? describe : describe.skip;
const helmPath = helm ?? '';

describeWithHelm('Helm chart with the kubernetes sandbox provider', () => {
  const manifests = renderChart(helmPath, VALUES);

  it('binds the broker alone to a Role in the sandbox namespace, pods and pods/exec only', () => {
    const role = find(manifests, 'Role', `${name('sandbox-broker')}-sandboxes`);
    expect(at(role, 'metadata.namespace')).toBe('caravel-sandboxes');
    expect(at(role, 'rules')).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['create', 'get'] },
    ]);
    expect(ofKind(manifests, 'ClusterRole')).toEqual([]);
    const binding = find(manifests, 'RoleBinding', `${name('sandbox-broker')}-sandboxes`);
    expect(at(binding, 'subjects')).toEqual([
      { kind: 'ServiceAccount', name: name('sandbox-broker'), namespace: 'caravel' },
    ]);
    for (const deployment of ofKind(manifests, 'Deployment')) {
      const broker = deployment.metadata.name === name('sandbox-broker');
      expect(at(deployment, 'spec.template.spec.automountServiceAccountToken')).toBe(broker);
      if (broker)
        expect(at(deployment, 'spec.template.spec.serviceAccountName')).toBe(
          name('sandbox-broker'),
        );
    }
  });

  it('runs the broker unprivileged and tells it where sandbox pods go', () => {
    const broker = find(manifests, 'Deployment', name('sandbox-broker'));
    expect(at(broker, 'spec.template.spec.hostUsers')).toBeUndefined();
    const container = (at(broker, 'spec.template.spec.containers') as Record<string, unknown>[])[0];
    expect(at(container, 'securityContext.seccompProfile')).toBeUndefined();
    const env = Object.fromEntries(
      (container?.['env'] as { name: string; value?: string }[]).map((e) => [e.name, e.value]),
    );
    expect(env).toMatchObject({
      SANDBOX_PROVIDER: 'kubernetes',
      SANDBOX_K8S_NAMESPACE: 'caravel-sandboxes',
      SANDBOX_K8S_RUNTIME_CLASS: 'gvisor',
      SANDBOX_K8S_CLAIM: name('sandboxes'),
      SANDBOX_K8S_CLAIM_SUBPATH: 'sandboxes',
      SANDBOX_K8S_OWNER: RELEASE,
      SANDBOX_K8S_EGRESS_PORT: '3128',
      SANDBOX_K8S_PROXY_URL: `http://${name('sandbox-broker')}.caravel.svc:3128`,
    });
  });

  it("exposes the broker's egress relay on its Service, the port pods are given", () => {
    const service = find(manifests, 'Service', name('sandbox-broker'));
    expect(at(service, 'spec.ports')).toEqual([
      expect.objectContaining({ name: 'http' }),
      { name: 'egress', port: 3128, targetPort: 3128, protocol: 'TCP' },
    ]);
    const ingress = find(manifests, 'Service', name('ingress'));
    expect((at(ingress, 'spec.ports') as unknown[]).length).toBe(1);
  });

  it('lets sandbox pods reach DNS and the broker proxy port only, and nothing reach them', () => {
    const policy = find(manifests, 'NetworkPolicy', `${RELEASE}-caravel-sandboxes`);
    const sandboxLabels = { 'caravel.dev/sandbox': 'true', 'caravel.dev/sandbox-owner': RELEASE };
    expect(selects(at(policy, 'spec.podSelector.matchLabels'), sandboxLabels)).toBe(true);
    expect(at(policy, 'spec.ingress')).toEqual([]);
    const egress = at(policy, 'spec.egress') as { ports: { port: number }[]; to?: unknown[] }[];
    expect(egress.map((rule) => rule.ports.map((p) => p.port))).toEqual([[53, 53], [3128]]);
    expect(egress[1]?.to).toHaveLength(1);
    const brokerPolicy = find(manifests, 'NetworkPolicy', name('sandbox-broker'));
    expect(JSON.stringify(at(brokerPolicy, 'spec.ingress'))).toContain('"port":3128');
  });

  it('refuses the kubernetes provider without a persistent sandbox claim', () => {
    const result = runHelm(helmPath, [
      'template',
      RELEASE,
      CHART,
      '-f',
      VALUES,
      '--set',
      'sandboxes.persistence.enabled=false',
    ]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('needs sandboxes.persistence.enabled');
  });
});
