import { parseShellCommands } from './shell-words.js';

/** A program a shell script runs, with its arguments and standard-input text. */
export interface ShellInvocation {
  /** The program's base name (`/usr/bin/gh` gives `gh`). */
  program: string;
  args: string[];
  stdin: string[];
}

/** Words that may open a simple command without being the program it runs. */
const KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'while', 'until', 'do']);
/** Programs that run the rest of their arguments as a command. */
const WRAPPERS = new Set(['command', 'exec', 'nohup', 'time', 'builtin', 'sudo', 'doas', 'nice']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const MAX_DEPTH = 8;

/**
 * Every program `script` would run, looked through: variable assignments and wrappers (`env`,
 * `command`, `sudo`, `nohup`, ...) before the program, `sh -c`/`bash -c` and `eval` strings, and
 * the commands inside substitutions. Guards check these instead of the raw text, so quoting,
 * escapes and line continuations cannot hide a command.
 */
export function shellInvocations(script: string, depth = 0): ShellInvocation[] {
  if (depth > MAX_DEPTH) return [];
  return parseShellCommands(script).flatMap((command) => {
    const words = stripPrefix(command.words);
    const [first, ...args] = words;
    if (first === undefined) return [];
    const program = first.slice(first.lastIndexOf('/') + 1);
    const invocation: ShellInvocation = { program, args, stdin: command.stdin };
    return [invocation, ...innerScripts(invocation).flatMap((s) => shellInvocations(s, depth + 1))];
  });
}

function stripPrefix(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const word = words[i] ?? '';
    const program = word.slice(word.lastIndexOf('/') + 1);
    if (KEYWORDS.has(word) || ASSIGNMENT.test(word) || WRAPPERS.has(program)) {
      i += 1;
      // A wrapper's own options (`sudo -u x`, `nice -n 5`) are not the program either.
      if (WRAPPERS.has(program)) i = skipOptions(words, i);
    } else if (program === 'env') {
      i = skipOptions(words, i + 1);
    } else {
      break;
    }
  }
  return words.slice(i);
}

/** Skips `-x`/`--xx` options and an option value that does not look like a program. */
function skipOptions(words: readonly string[], start: number): number {
  let i = start;
  while (i < words.length && (words[i] ?? '').startsWith('-')) {
    const option = words[i] ?? '';
    i += 1;
    if (option === '--') break;
    const takesValue = /^-[unCgSsp]$|^--(user|group|chdir|unset|split-string)$/.test(option);
    if (takesValue) i += 1;
  }
  return i;
}

/** The script a shell (`-c`) or `eval` would run, if this invocation starts one. */
function innerScripts(invocation: ShellInvocation): string[] {
  if (invocation.program === 'eval') return [invocation.args.join(' ')];
  if (!SHELLS.has(invocation.program)) return [];
  const args = invocation.args;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) {
      const script = args[i + 1];
      return script === undefined ? [] : [script];
    }
  }
  // `bash <<EOF ... EOF` and `echo '...' | bash` (the latter is read from the pipe: not seen).
  return invocation.stdin;
}
