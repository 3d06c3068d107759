import { hash } from 'node:crypto';
import { payloadMalformed } from '../ingress.errors.js';

/**
 * How deep a verified body may nest: far beyond real payloads (the deepest of GitHub's 329
 * example payloads in @octokit/webhooks-examples nests 7 levels). Past it the body is refused
 * with a 400, since a stored body is serialised again downstream (`JSON.stringify` is recursive
 * and overflows its stack near 10,000 levels).
 */
export const MAX_JSON_DEPTH = 64;

/** A verified body as Caravel keeps it, and the fingerprint of the bytes it came from. */
export interface UntrustedBody {
  /** The parsed body, every string (and key) made storable (see {@link storableText}). */
  payload: unknown;
  /** Hex SHA-256 of the raw bytes as received: the record of what the signature covered. */
  sha256: string;
  /**
   * The JSON text `payload` was parsed from, when reading it changed nothing (no string needed
   * making storable): the delivery is stored from it instead of the payload serialised again.
   */
  json?: string;
}

// NUL, and a UTF-16 surrogate that is not half of a pair. Neither survives PostgreSQL (jsonb and
// text refuse both), and a lone surrogate is not even Unicode. Matching NUL is the point here.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');
const REPLACEMENT = '\uFFFD';

/**
 * `text` with NUL and lone surrogates replaced by U+FFFD. Replaced, not dropped: dropping would
 * join what they separated (`@cara\u0000vel` must not become a mention).
 */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, REPLACEMENT) : text;
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container =>
  typeof value === 'object' && value !== null;

/** Replaces `key` of `object` by `cleanKey`, defining it (a `__proto__` key stays a plain key). */
function rename(object: Record<string, unknown>, key: string, cleanKey: string): void {
  const value = object[key];
  delete object[key];
  Object.defineProperty(object, cleanKey, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

const tooDeep = (source: string) =>
  payloadMalformed(source, `the body nests deeper than ${MAX_JSON_DEPTH} levels`);

/**
 * The containers {@link checkDepth} has yet to read and their depths: kept from one body to the
 * next (a body's walk is synchronous), so a walk grows no arrays. Emptied after each walk, so no
 * body is kept alive by them.
 */
const pendingNodes: (Container | undefined)[] = [];
const pendingDepths: number[] = [];

/**
 * Refuses a value nesting deeper than {@link MAX_JSON_DEPTH}, reading it without recursion and
 * without copying anything (no key lists, no arrays grown: every webhook body goes through here).
 */
function checkDepth(source: string, root: Container): void {
  pendingNodes[0] = root;
  pendingDepths[0] = 1;
  let top = 1;
  try {
    while (top > 0) {
      top -= 1;
      const node = pendingNodes[top]!;
      pendingNodes[top] = undefined;
      const depth = pendingDepths[top]!;
      if (Array.isArray(node)) {
        for (let index = 0; index < node.length; index += 1) {
          const value: unknown = node[index];
          if (!isContainer(value)) continue;
          if (depth >= MAX_JSON_DEPTH) throw tooDeep(source);
          pendingNodes[top] = value;
          pendingDepths[top] = depth + 1;
          top += 1;
        }
        continue;
      }
      for (const key in node) {
        const value = Object.hasOwn(node, key) ? node[key] : undefined;
        if (!isContainer(value)) continue;
        if (depth >= MAX_JSON_DEPTH) throw tooDeep(source);
        pendingNodes[top] = value;
        pendingDepths[top] = depth + 1;
        top += 1;
      }
    }
  } finally {
    pendingNodes.fill(undefined, 0, top);
  }
}

/**
 * Makes a value built from untrusted JSON storable, in place: every string and key through
 * {@link storableText}, without recursion (so no depth can overflow a stack here), refused as a
 * 400 once it nests deeper than {@link MAX_JSON_DEPTH}. For bodies (via
 * {@link readUntrustedJson}) and for what a read-back returns (a Jira or Confluence comment).
 * `textsAreStorable` (the caller knows no string can hold NUL or a lone surrogate) skips the
 * string checks; the depth is checked all the same.
 */
export function storable<T>(source: string, root: T, textsAreStorable = false): T {
  if (typeof root === 'string') return textsAreStorable ? root : (storableText(root) as T);
  if (!isContainer(root)) return root;
  if (textsAreStorable) {
    checkDepth(source, root);
    return root;
  }
  const clean = storableText;
  const pending: { node: Container; depth: number }[] = [{ node: root, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { node, depth } = next;
    const object = node as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const value = object[key];
      if (typeof value === 'string') object[key] = clean(value);
      else if (isContainer(value)) {
        if (depth >= MAX_JSON_DEPTH) throw tooDeep(source);
        pending.push({ node: value, depth: depth + 1 });
      }
      if (!Array.isArray(node)) {
        const cleanKey = clean(key);
        if (cleanKey !== key) rename(object, key, cleanKey);
      }
    }
  }
  return root;
}

/**
 * Where untrusted JSON enters Caravel: parses a verified body (`json`, by default the raw bytes
 * as UTF-8; a GitHub form delivery passes its `payload` field), refuses what cannot be stored or
 * serialised again as a 400 (not JSON, nested too deep), replaces NUL and lone surrogates in
 * every string and key, and fingerprints the raw bytes. Everything downstream (the delivery
 * record, the published trigger, dispatch, the runner) sees only what this returns.
 */
export function readUntrustedJson(
  source: string,
  raw: Buffer,
  json: string = raw.toString('utf8'),
): UntrustedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json) as unknown;
  } catch {
    throw payloadMalformed(source, 'body is not JSON');
  }
  // JSON text can only yield NUL or a lone surrogate through a `\u` escape: a raw control
  // character is not JSON, and decoded UTF-8 holds no surrogates. Most bodies have none.
  const unescaped = !json.includes('\\u');
  const body: UntrustedBody = {
    payload: storable(source, parsed, unescaped),
    sha256: hash('sha256', raw, 'hex'),
  };
  if (unescaped) body.json = json;
  return body;
}
