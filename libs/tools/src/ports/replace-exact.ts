import type { EditOutcome } from './tool-sandbox.port.js';

/** An edit outcome together with the new text when the edit applies. */
export type ReplaceExactResult =
  | (Extract<EditOutcome, { status: 'replaced' }> & { content: string })
  | Exclude<EditOutcome, { status: 'replaced' }>;

/**
 * The exact-replacement rules of {@link ToolSandbox.editFile}, as a pure function so every
 * adapter built on read + write applies the same ones. Text is compared byte for byte: tabs and
 * trailing whitespace are preserved (SWE-agent's editor expanded tabs, which rewrote Makefiles).
 */
export function replaceExact(
  content: string,
  oldText: string,
  newText: string,
  replaceAll: boolean,
): ReplaceExactResult {
  const offsets = occurrenceOffsets(content, oldText);
  if (offsets.length === 0) return { status: 'no-match' };
  const lines = offsets.map((offset) => lineAt(content, offset));
  if (offsets.length > 1 && !replaceAll) {
    return { status: 'ambiguous', occurrences: offsets.length, lines };
  }
  return {
    status: 'replaced',
    occurrences: offsets.length,
    lines,
    content: content.split(oldText).join(newText),
  };
}

/** Offsets of non-overlapping occurrences, left to right (the ones `split` would replace). */
function occurrenceOffsets(content: string, needle: string): number[] {
  const offsets: number[] = [];
  if (needle.length === 0) return offsets;
  let from = content.indexOf(needle);
  while (from !== -1) {
    offsets.push(from);
    from = content.indexOf(needle, from + needle.length);
  }
  return offsets;
}

function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i += 1) if (content.charCodeAt(i) === 10) line += 1;
  return line;
}
