/** Arguments ready for a tool, or why they cannot be used. */
export type NormalizedArgs =
  { ok: true; args: Record<string, unknown>; changes: string[] } | { ok: false; reason: string };

/** What the normaliser needs to know about the target tool. */
export interface NormalizeOptions {
  /** Largest accepted argument payload, in bytes of its JSON. */
  maxBytes: number;
  /** Top-level keys the tool's schema types as object or array. */
  structuredKeys: ReadonlySet<string>;
}

const NUL = String.fromCharCode(0);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stripNul(value: unknown, changes: { count: number }): unknown {
  if (typeof value === 'string') {
    const cleaned = value.split(NUL).join('');
    if (cleaned.length !== value.length) changes.count += value.length - cleaned.length;
    return cleaned;
  }
  if (Array.isArray(value)) return value.map((item) => stripNul(item, changes));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripNul(v, changes)]));
  }
  return value;
}

function toObject(raw: unknown, changes: string[]): Record<string, unknown> | string {
  if (isPlainObject(raw)) return raw;
  if (typeof raw === 'string') {
    const parsed = parseJson(raw);
    if (isPlainObject(parsed)) {
      changes.push('parsed arguments given as a JSON string');
      return parsed;
    }
  }
  return 'the arguments must be a JSON object';
}

function decodeStructured(
  args: Record<string, unknown>,
  keys: ReadonlySet<string>,
  changes: string[],
): Record<string, unknown> {
  const out = { ...args };
  for (const key of keys) {
    const value = out[key];
    if (typeof value !== 'string') continue;
    const parsed = parseJson(value);
    if (typeof parsed === 'object' && parsed !== null) {
      out[key] = parsed;
      changes.push(`decoded "${key}" from a JSON string`);
    }
  }
  return out;
}

/**
 * Repairs the usual ways models mangle tool arguments: a JSON string instead of an object, nested
 * objects sent as JSON strings, and NUL bytes. Oversize payloads are refused, never truncated.
 */
export function normalizeToolArgs(raw: unknown, options: NormalizeOptions): NormalizedArgs {
  const changes: string[] = [];
  const object = toObject(raw, changes);
  if (typeof object === 'string') return { ok: false, reason: object };
  const nul = { count: 0 };
  const cleaned = stripNul(object, nul) as Record<string, unknown>;
  if (nul.count > 0) changes.push(`removed ${nul.count} NUL byte(s)`);
  const args = decodeStructured(cleaned, options.structuredKeys, changes);
  const bytes = Buffer.byteLength(JSON.stringify(args), 'utf8');
  if (bytes > options.maxBytes) {
    return {
      ok: false,
      reason: `the arguments are ${bytes} bytes, above the limit of ${options.maxBytes}; split the work into smaller calls`,
    };
  }
  return { ok: true, args, changes };
}
