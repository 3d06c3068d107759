import { describe, expect, it } from '@jest/globals';
import { DEFAULT_BLOCKLIST, EXTRA_INTERACTIVE_PREFIXES, findBlockedCommand } from './blocklist.js';
import { splitCommandSegments } from './command-segments.js';

describe('findBlockedCommand with the default blocklist', () => {
  it.each([
    ['vim', "is exactly 'vim'", "starts with 'vim'"],
    ['vim src/app.py', "starts with 'vim'"],
    ['vi notes.txt', "starts with 'vi'"],
    ['nano README.md', "starts with 'nano'"],
    ['emacs -nw x.el', "starts with 'emacs'"],
    ['less', "starts with 'less'"],
    ['less log.txt', "starts with 'less'"],
    ['gdb ./a.out', "starts with 'gdb'"],
    ['tail -f server.log', "starts with 'tail -f'"],
    ['python -m venv .venv', "starts with 'python -m venv'"],
    ['make', "starts with 'make'"],
    ['nohup ./server &', "starts with 'nohup'"],
    ['python', "is exactly 'python'"],
    ['python3', "is exactly 'python3'"],
    ['ipython', "is exactly 'ipython'"],
    ['bash', "is exactly 'bash'"],
    ['sh', "is exactly 'sh'"],
    ['/bin/bash', "is exactly '/bin/bash'"],
    ['su', "is exactly 'su'"],
    ['radare2 ./bin', "'radare2' without '-c'"],
    ['r2 ./bin', "'r2' without '-c'"],
    ['  vim   x  ', "starts with 'vim'"],
    ['python3\n', "is exactly 'python3'"],
  ])('blocks %j', (action, ...rules) => {
    const blocked = findBlockedCommand(action);
    expect(blocked).not.toBeNull();
    expect(rules).toContain(blocked?.rule);
  });

  it.each([
    'ls -la',
    'python reproduce.py',
    'python3 -c "print(1)"',
    'bash run_tests.sh',
    'virtualenv env',
    'lessc style.less',
    'makeindex doc.idx',
    'vimdiff-free tool',
    'tail -n 20 server.log',
    'radare2 -c "pdf" ./bin',
    'grep -rn "vim" src',
    'echo "a; vim b"',
    "echo 'x && nano y'",
    'cat <<EOF > notes.txt\nvim\nnano\nEOF',
    'npm test 2>&1 | tee out.txt',
    'ls &>/dev/null',
    'subsu --help',
  ])('lets %j run', (action) => {
    expect(findBlockedCommand(action)).toBeNull();
  });

  it.each([
    ['cd src && vim app.py', 'vim app.py'],
    ['git log | less', 'less'],
    ['ls; python', 'python'],
    ['true || nano x', 'nano x'],
    ['(vim x)', 'vim x'],
    ['EDITOR=vi vi x', 'vi x'],
    ['cat <<EOF > a\nhello\nEOF\nvim a', 'vim a'],
  ])('finds the blocked command inside the compound %j', (action, command) => {
    expect(findBlockedCommand(action)?.command).toBe(command);
  });

  it("checks only the whole action when compound checks are off (SWE-agent's rule)", () => {
    const config = { ...DEFAULT_BLOCKLIST, checkCompound: false };
    expect(findBlockedCommand('cd src && vim app.py', config)).toBeNull();
    expect(findBlockedCommand('vim app.py', config)?.command).toBe('vim app.py');
  });

  it('accepts a deployment-specific list', () => {
    const config = {
      ...DEFAULT_BLOCKLIST,
      prefixes: [...DEFAULT_BLOCKLIST.prefixes, ...EXTRA_INTERACTIVE_PREFIXES],
    };
    expect(findBlockedCommand('top -b', config)?.rule).toBe("starts with 'top'");
    expect(findBlockedCommand('top -b')).toBeNull();
  });
});

describe('splitCommandSegments', () => {
  it.each([
    ['a && b || c; d | e & f', ['a', 'b', 'c', 'd', 'e', 'f']],
    ['echo "x && y" && z', ['echo "x && y"', 'z']],
    ["echo 'a | b'", ["echo 'a | b'"]],
    ['echo a\\;b', ['echo a\\;b']],
    ['cmd 2>&1 | tee f', ['cmd 2>&1', 'tee f']],
    ['cat <<-"END" | wc\nbody; vim\n\tEND\nls', ['cat <<-"END"', 'wc', 'ls']],
    ['cat <<< "here"; ls', ['cat <<< "here"', 'ls']],
    ['\n\n\n', []],
    ['echo "multi\nline" ; ls', ['echo "multi\nline"', 'ls']],
  ])('splits %j', (action, segments) => {
    expect(splitCommandSegments(action)).toEqual(segments);
  });
});
