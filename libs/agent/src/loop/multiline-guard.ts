/** A tool command whose body spans lines and ends at a marker line (e.g. `edit` ... `end_of_edit`). */
export interface MultilineCommand {
  name: string;
  endName: string;
}

/** The guarded action, or the command whose end marker is missing. */
export type MultilineGuardResult =
  { ok: true; action: string } | { ok: false; command: string; endName: string; line: number };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function heredocMarker(endName: string): string {
  return `<< '${endName}'`;
}

/**
 * Makes multi-line tool commands safe to send to bash: the first line of each block gets a
 * quoted heredoc marker (`<< 'end_of_edit'`) so the body reaches the tool as stdin, not as
 * commands. Text before and after a block is kept as it is. A block without its end marker
 * line is reported (with its 1-based line) instead of being sent.
 */
export function guardMultilineCommands(
  action: string,
  commands: readonly MultilineCommand[],
): MultilineGuardResult {
  const lines = action.split('\n');
  for (const { name, endName } of commands) {
    const opener = new RegExp(`^\\s*${escapeRegExp(name)}(\\s|$)`);
    for (let index = 0; index < lines.length; index += 1) {
      const line = lines[index] ?? '';
      if (!opener.test(line)) continue;
      const end = lines.findIndex((l, i) => i > index && l.trimEnd() === endName);
      if (end === -1) return { ok: false, command: name, endName, line: index + 1 };
      const marker = heredocMarker(endName);
      if (!line.trimEnd().endsWith(marker)) lines[index] = `${line.trimEnd()} ${marker}`;
      index = end;
    }
  }
  return { ok: true, action: lines.join('\n') };
}
