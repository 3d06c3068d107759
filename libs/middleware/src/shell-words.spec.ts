import { describe, expect, it } from '@jest/globals';
import { shellInvocations } from './shell-invocations.js';
import { parseShellCommands } from './shell-words.js';

const words = (script: string) => parseShellCommands(script).map((c) => c.words);

describe('parseShellCommands', () => {
  it('removes single, double and ANSI-C quotes', () => {
    expect(words(`a 'b c' "d \\"e\\"" $'f\\tg\\x41\\101\\u00e9' h\\ i`)).toEqual([
      ['a', 'b c', 'd "e"', 'f\tgAAé', 'h i'],
    ]);
  });

  it('joins line continuations, also inside double quotes', () => {
    expect(words('gh pr \\\n  review "--app\\\nrove"')).toEqual([
      ['gh', 'pr', 'review', '--approve'],
    ]);
  });

  it('splits at control operators and newlines, not inside quotes', () => {
    expect(words('a && b || c; d | e & f\ng "h; i"')).toEqual([
      ['a'],
      ['b'],
      ['c'],
      ['d'],
      ['e'],
      ['f'],
      ['g', 'h; i'],
    ]);
  });

  it('drops redirections and comments but keeps here-document text as stdin', () => {
    const [command] = parseShellCommands('cat 2>&1 >out.txt <<-EOF # note\n\tbody line\n\tEOF\n');
    expect(command).toEqual({ words: ['cat'], stdin: ['body line'] });
    expect(parseShellCommands("tr a b <<< 'x y'")).toEqual([
      { words: ['tr', 'a', 'b'], stdin: ['x y'] },
    ]);
  });

  it('reads the commands inside substitutions and subshells', () => {
    expect(words('echo "$(gh pr view 1)" `ls -a` <(cat f) (cd x; make)')).toEqual([
      ['echo', '$(gh pr view 1)', '`ls -a`', '<(cat f)'],
      ['cd', 'x'],
      ['make'],
      ['gh', 'pr', 'view', '1'],
      ['ls', '-a'],
      ['cat', 'f'],
    ]);
  });

  it('runs an unterminated quote to the end instead of failing', () => {
    expect(words("echo 'never closed")).toEqual([['echo', 'never closed']]);
  });
});

describe('shellInvocations', () => {
  it('looks through assignments, wrappers, sh -c and eval', () => {
    const programs = shellInvocations(
      'FOO=1 env -u X sudo -u me nohup bash -lc "eval \'gh pr view\'" && if true; then git log; fi',
    ).map((i) => [i.program, ...i.args]);
    expect(programs).toEqual([
      ['bash', '-lc', "eval 'gh pr view'"],
      ['eval', 'gh pr view'],
      ['gh', 'pr', 'view'],
      ['true'],
      ['git', 'log'],
      ['fi'],
    ]);
  });
});
