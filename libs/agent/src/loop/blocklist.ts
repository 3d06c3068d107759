import { splitCommandSegments } from './command-segments.js';

/** A command that is blocked unless it carries a flag (e.g. `radare2` without `-c` is interactive). */
export interface FlagExemption {
  command: string;
  flag: string;
}

/** Which commands the agent may not run: interactive programs and long-lived processes. */
export interface BlocklistConfig {
  /** Blocked when a command starts with one of these (as whole words: `vi` blocks `vi x`, not `virtualenv`). */
  prefixes: readonly string[];
  /** Blocked when a command is exactly one of these (a bare REPL or shell). */
  exact: readonly string[];
  /** Blocked unless the command contains the flag. */
  unlessFlag: readonly FlagExemption[];
  /**
   * Check every command of a compound action (`cd x && vim y`, `git log | less`), not only the
   * action as a whole. SWE-agent checks only the whole string.
   */
  checkCompound: boolean;
}

/** radare2 is interactive unless it is given a script to run (`-c`). */
const SCRIPTED_DEBUGGERS: BlocklistConfig['unlessFlag'] = [
  { command: 'radare2', flag: '-c' },
  { command: 'r2', flag: '-c' },
];

/** SWE-agent's default blocklist (prefix and exact lists, `radare2`/`r2` unless `-c`). */
export const DEFAULT_BLOCKLIST: BlocklistConfig = {
  prefixes: [
    'vim',
    'vi',
    'emacs',
    'nano',
    'nohup',
    'gdb',
    'less',
    'tail -f',
    'python -m venv',
    'make',
  ],
  exact: [
    'python',
    'python3',
    'ipython',
    'bash',
    'sh',
    '/bin/bash',
    '/bin/sh',
    'nohup',
    'vi',
    'vim',
    'emacs',
    'nano',
    'su',
  ],
  unlessFlag: SCRIPTED_DEBUGGERS,
  checkCompound: true,
};

/**
 * Caravel's blocklist: editors, debuggers, bare REPLs and shells, and followers (`tail -f`).
 * Unlike SWE-agent's it lets `make`, `less` and `python -m venv` through: Caravel's sessions give
 * commands no terminal and no stdin, so pagers return at once, and building is normal work; a
 * long build is bounded by the command timeout instead.
 */
export const CARAVEL_BLOCKLIST: BlocklistConfig = {
  prefixes: ['vim', 'vi', 'emacs', 'nano', 'gdb', 'tail -f', 'top', 'htop', 'watch'],
  exact: [
    'python',
    'python3',
    'ipython',
    'node',
    'irb',
    'bash',
    'sh',
    '/bin/bash',
    '/bin/sh',
    'nohup',
    'su',
    'psql',
  ],
  unlessFlag: SCRIPTED_DEBUGGERS,
  checkCompound: true,
};

/** Other interactive programs a deployment may add to {@link BlocklistConfig.prefixes}. */
export const EXTRA_INTERACTIVE_PREFIXES: readonly string[] = [
  'top',
  'htop',
  'watch',
  'man',
  'more',
  'node',
  'irb',
  'psql',
];

/** The command that was blocked and the rule that blocked it. */
export interface BlockedCommand {
  command: string;
  /** Human-readable rule, e.g. `starts with 'vim'`. */
  rule: string;
}

const ASSIGNMENT = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/;

function normalise(command: string): string {
  return command
    .replace(/^[({\s]+/, '')
    .replace(/[)}\s]+$/, '')
    .replace(ASSIGNMENT, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function startsWithWord(command: string, prefix: string): boolean {
  return command === prefix || command.startsWith(`${prefix} `);
}

function matchRule(command: string, config: BlocklistConfig): string | null {
  const prefix = config.prefixes.find((p) => startsWithWord(command, p));
  if (prefix !== undefined) return `starts with '${prefix}'`;
  if (config.exact.includes(command)) return `is exactly '${command}'`;
  const exemption = config.unlessFlag.find(
    (e) => startsWithWord(command, e.command) && !command.split(' ').includes(e.flag),
  );
  if (exemption !== undefined) return `'${exemption.command}' without '${exemption.flag}'`;
  return null;
}

/**
 * The first blocked command in `action`, or `null` when the action may run. The whole action
 * is checked first (SWE-agent's rule), then, with `checkCompound`, each simple command in it.
 */
export function findBlockedCommand(
  action: string,
  config: BlocklistConfig = DEFAULT_BLOCKLIST,
): BlockedCommand | null {
  const whole = normalise(action);
  const wholeRule = matchRule(whole, config);
  if (wholeRule !== null) return { command: whole, rule: wholeRule };
  if (!config.checkCompound) return null;
  for (const segment of splitCommandSegments(action)) {
    const command = normalise(segment);
    const rule = matchRule(command, config);
    if (rule !== null) return { command, rule };
  }
  return null;
}
