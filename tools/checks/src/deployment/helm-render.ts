// Renders the chart with the pinned helm and reads the manifests back, for the render specs:
// every document parsed, validated against the Kubernetes OpenAPI schemas of its kind
// (kubernetes-models), and looked up by kind and name.
import { parseAllDocuments } from 'yaml';
import { runHelm } from './helm-binary.js';
import { isRecord } from './deployment-checks.js';

export const CHART = 'infra/helm/caravel';
export const RELEASE = 'ci';

export type Manifest = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
};

/** `helm template` of the chart with one values file (and `--set` pairs); throws with stderr. */
export function renderChart(helm: string, valuesFile: string, sets: string[] = []): Manifest[] {
  const args = ['template', RELEASE, CHART, '--namespace', 'caravel', '-f', valuesFile];
  const result = runHelm(helm, [...args, ...sets.flatMap((set) => ['--set', set])]);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return Array.from(parseAllDocuments(result.stdout))
    .map((doc) => doc.toJS() as unknown)
    .filter((doc): doc is Manifest => isRecord(doc) && typeof doc['kind'] === 'string');
}

/** The module path of a kind's model: core `v1` → `v1/Pod`, `apps/v1` → `apps/v1/Deployment`. */
function modelPath(manifest: Manifest): string {
  return `kubernetes-models/${manifest.apiVersion}/${manifest.kind}`;
}

type Model = new (data: unknown) => { validate(): void };
const models = new Map<string, Model>();

/** A kind's model class, imported once (concurrent imports of one module race under Jest). */
async function modelOf(manifest: Manifest): Promise<Model> {
  const path = modelPath(manifest);
  let model = models.get(path);
  if (!model) {
    const module = (await import(path)) as Record<string, unknown>;
    model = module[manifest.kind] as Model;
    models.set(path, model);
  }
  return model;
}

/** Schema problems of a manifest (`kind/name: message`), empty when it validates. */
export async function schemaProblems(manifest: Manifest): Promise<string[]> {
  const where = `${manifest.kind}/${manifest.metadata.name}`;
  let Model: Model;
  try {
    Model = await modelOf(manifest);
  } catch (error) {
    return [`${where}: no schema for ${manifest.apiVersion} ${manifest.kind}: ${String(error)}`];
  }
  try {
    new Model(manifest).validate();
    return [];
  } catch (error) {
    return [`${where}: ${(error as Error).message}`];
  }
}

export function find(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is not rendered`);
  return found;
}

export function ofKind(manifests: readonly Manifest[], kind: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind);
}

/** A value at a dotted path of a manifest (`spec.template.spec`), or undefined. */
export function at(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), value);
}

/** Whether `selector` (matchLabels) selects a pod with `labels`. */
export function selects(selector: unknown, labels: unknown): boolean {
  if (!isRecord(selector) || !isRecord(labels)) return false;
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}
