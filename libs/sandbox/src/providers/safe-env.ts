import { validateEnv } from '../session/request-encoder.js';

/** The PATH commands get; the host's PATH is never used. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The whole environment of a sandbox session: a fixed, secret-free set that keeps tools
 * non-interactive (no pagers, no prompts, no editors, no colours), plus the spec's extras.
 * Nothing is inherited from the host process.
 */
export function safeEnvironment(options: {
  home: string;
  user: string;
  extra?: Readonly<Record<string, string>>;
}): Record<string, string> {
  const base: Record<string, string> = {
    PATH: SANDBOX_PATH,
    HOME: options.home,
    USER: options.user,
    LOGNAME: options.user,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TMPDIR: '/tmp',
    TERM: 'dumb',
    NO_COLOR: '1',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANPAGER: 'cat',
    SYSTEMD_PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_TERMINAL_PROMPT: '0',
    DEBIAN_FRONTEND: 'noninteractive',
    PIP_NO_INPUT: '1',
    PYTHONUNBUFFERED: '1',
  };
  return { ...base, ...Object.fromEntries(validateEnv(options.extra ?? {})) };
}
