/**
 * Deciding whether a response body is text, and decoding it. A declared textual media type is
 * text; a declared binary one is not; an undeclared or generic (`application/octet-stream`) body
 * is text only when its first bytes hold no NUL and decode as UTF-8.
 */

const TEXT_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/x-www-form-urlencoded',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/graphql',
  'application/sql',
  'application/x-sh',
  'application/x-ndjson',
  'application/problem+json',
]);

const UNDECLARED = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** The media type of a `content-type` header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function sniffsAsText(body: Buffer): boolean {
  const head = body.subarray(0, 4096);
  if (head.includes(0)) return false;
  try {
    // A cut at the limit may split a character: leave the last three bytes out of the check.
    new TextDecoder('utf-8', { fatal: true }).decode(
      head.subarray(0, Math.max(0, head.length - 3)),
    );
    return true;
  } catch {
    return false;
  }
}

/** True when the body can be shown as text. */
export function isTextual(contentType: string | undefined, body: Buffer): boolean {
  const type = mediaTypeOf(contentType);
  if (UNDECLARED.has(type)) return sniffsAsText(body);
  return (
    type.startsWith('text/') ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    TEXT_TYPES.has(type)
  );
}

/** True for HTML, declared or (when undeclared) recognisable from its first characters. */
export function isHtml(contentType: string | undefined, text: string): boolean {
  const type = mediaTypeOf(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  return UNDECLARED.has(type) && /^\s*(?:<!doctype html|<html[\s>])/i.test(text);
}

function labelOf(contentType: string | undefined, body: Buffer): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (declared) return declared;
  const head = body.subarray(0, 2048).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? 'utf-8';
}

/** Decodes a textual body with its declared (or `<meta>`) charset, UTF-8 when unknown. */
export function decodeBody(contentType: string | undefined, body: Buffer): string {
  try {
    return new TextDecoder(labelOf(contentType, body)).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
