/** The marker around text from people or systems whose words are data, not instructions. */
export const UNTRUSTED_TAG = 'untrusted_content';

/** Escapes a value for a double-quoted marker attribute. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Neutralises any marker inside the text so untrusted content cannot close its own wrapper. */
export function neutraliseUntrustedMarkers(text: string): string {
  return text.replace(new RegExp(`<(/?)${UNTRUSTED_TAG}`, 'gi'), '&lt;$1' + UNTRUSTED_TAG);
}

/**
 * Wraps text in the untrusted marker, with `attributes` (author, source, ...) on the opening tag.
 * Markers inside the text are neutralised first, so the wrapped text cannot escape.
 */
export function wrapUntrusted(text: string, attributes: Record<string, string> = {}): string {
  const attrs = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
  return `<${UNTRUSTED_TAG}${attrs}>\n${neutraliseUntrustedMarkers(text)}\n</${UNTRUSTED_TAG}>`;
}

/** A plain name (what a branch or a path usually is): shown as it is. */
const PLAIN_NAME = /^[\w.@+/-]{1,200}$/;

/**
 * A name someone else chose (a fork's branch, a path in their pull request) as a prompt shows
 * it: as it is when it is plain, else as a JSON string with every character outside printable
 * ASCII escaped (line breaks, U+00A0 and other spaces that git allows) and cut at 200 characters,
 * so it reads as one name, never as words or lines of the prompt.
 */
export function quotedName(name: string): string {
  if (PLAIN_NAME.test(name)) return name;
  const cut = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return JSON.stringify(cut).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
