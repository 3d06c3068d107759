/** A value canonical JSON can encode: no undefined, no non-integer or unsafe numbers. */
export type CanonicalValue =
  | null
  | boolean
  | number
  | string
  | readonly CanonicalValue[]
  | { readonly [key: string]: CanonicalValue };

/**
 * Canonical JSON: one text per value, so equal values hash equally.
 *
 * - Objects: keys sorted by UTF-16 code units (JavaScript's default sort, as RFC 8785 does),
 *   each key once; arrays keep their order.
 * - No whitespace at all: `{"a":[1,true,null]}`.
 * - Strings as `JSON.stringify` writes them: `"` and `\` escaped, U+0000–U+001F as `\b \f \n \r
 *   \t` or `\u00xx` (lowercase hex), lone surrogates as `\udxxx`; every other character as itself.
 *   The text is hashed as UTF-8.
 * - Numbers: safe integers only, in decimal (`-0` is `0`). Fractions, NaN and infinities are
 *   refused, so no float formatting rule is needed; nor are `undefined`, bigints, functions or
 *   class instances (a Date must be a string first).
 */
export function canonicalJson(value: CanonicalValue): string {
  return encode(value, '$');
}

function encode(value: unknown, path: string): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`canonical JSON takes safe integers only (${path} is ${value})`);
    }
    return String(value === 0 ? 0 : value);
  }
  if (typeof value === 'object') {
    return Array.isArray(value) ? encodeArray(value, path) : encodeObject(value, path);
  }
  throw new TypeError(`canonical JSON cannot encode ${typeof value} (${path})`);
}

function encodeArray(items: readonly unknown[], path: string): string {
  return `[${items.map((item, i) => encode(item, `${path}[${i}]`)).join(',')}]`;
}

function encodeObject(value: object, path: string): string {
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`canonical JSON takes plain objects only (${path})`);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const members = keys.map(
    (key) => `${JSON.stringify(key)}:${encode(record[key], `${path}.${key}`)}`,
  );
  return `{${members.join(',')}}`;
}
