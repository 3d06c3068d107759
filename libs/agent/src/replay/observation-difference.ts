/**
 * Where a replayed observation first parts from the recorded one, on one line: the line number
 * and both lines, each cut to 120 characters (`(end)` past the last line).
 */
export function observationDifference(recorded: string, replayed: string): string {
  const before = recorded.split('\n');
  const after = replayed.split('\n');
  let line = 0;
  while (line < before.length && before[line] === after[line]) line += 1;
  const cut = (text: string | undefined) => (text ?? '(end)').slice(0, 120);
  return `line ${line + 1}: recorded ${JSON.stringify(cut(before[line]))}, replayed ${JSON.stringify(cut(after[line]))}`;
}
