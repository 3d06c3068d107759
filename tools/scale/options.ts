import type { ServiceCounts } from '../chaos/harness/platform.js';

/** What `tools/scale/run.mjs` was asked for (its flags, parsed there). */
export interface ScaleOptions {
  durationS: number;
  killEveryS: number;
  /** `--kill-only`: the services whose processes may be killed, comma-separated; '' for all. */
  killOnly?: string;
  rate: number;
  /** A preset name or `ingress=3,dispatch=2,...`. */
  replicas: string;
  out: string;
  drainS: number;
  baseline: boolean;
  /** The services' LOG_LEVEL (their logs are kept in `out`). */
  logLevel: string;
  command: string;
}

/** The services a run needs, one each: the baseline. */
export const BASELINE: ServiceCounts = {
  ingress: 1,
  dispatch: 1,
  'agent-runner': 1,
  'sandbox-broker': 1,
};

/** Named shapes `--replicas` takes. */
export const PRESETS: Readonly<Record<string, ServiceCounts>> = {
  team: { ingress: 3, dispatch: 2, 'agent-runner': 3, 'sandbox-broker': 2 },
  double: { ingress: 2, dispatch: 2, 'agent-runner': 2, 'sandbox-broker': 2 },
  baseline: BASELINE,
};

/** A preset's counts, or `name=count` pairs over the baseline's services; throws on anything else. */
export function replicasOf(spec: string): ServiceCounts {
  const preset = PRESETS[spec];
  if (preset) return preset;
  const counts: Record<string, number> = { ...BASELINE };
  for (const pair of spec.split(',')) {
    const [name = '', value = ''] = pair.split('=');
    const count = Number(value);
    if (!(name in BASELINE) || !Number.isInteger(count) || count < 1)
      throw new Error(
        `--replicas ${spec}: expected one of ${Object.keys(PRESETS).join(', ')} or name=count pairs of ${Object.keys(BASELINE).join(', ')}`,
      );
    counts[name] = count;
  }
  return counts;
}

/** `--kill-only`'s services (comma-separated), each one of the baseline's; throws on anything else. */
export function killOnlyOf(spec: string): string[] {
  const names = spec
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(name in BASELINE));
  if (unknown.length > 0)
    throw new Error(
      `--kill-only ${spec}: unknown service ${unknown.join(', ')}; one of ${Object.keys(BASELINE).join(', ')}`,
    );
  return names;
}
