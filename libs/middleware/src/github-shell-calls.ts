import type { ShellInvocation } from './shell-invocations.js';

/** What a `gh api` or `curl` invocation sends to GitHub's REST API, as far as words tell. */
export interface ApiCall {
  /** Every argument that looks like a URL or API path. */
  endpoints: string[];
  /** Upper-cased method when given (`-X POST`), else null. */
  method: string | null;
  /** `gh api` fields as written (`key=value`). */
  fields: string[];
  /** Raw request bodies (curl data, `--input -` text). */
  bodies: string[];
  /** A body read from a file the guard cannot see (`--input f`, `-d @f`, `-F event=@f`). */
  opaqueBody: boolean;
}

/** `gh` flags (any subcommand) that take a value, so the next word is not an argument. */
const GH_VALUE_FLAGS = new Set([
  '-R',
  '--repo',
  '-b',
  '--body',
  '-F',
  '--body-file',
  '-f',
  '--field',
  '--raw-field',
  '-H',
  '--header',
  '-X',
  '--method',
  '--input',
  '-q',
  '--jq',
  '-t',
  '--template',
  '--hostname',
  '--cache',
]);
const CURL_DATA = new Set([
  '-d',
  '--data',
  '--data-raw',
  '--data-binary',
  '--data-ascii',
  '--data-urlencode',
  '--json',
  '-F',
  '--form',
  '--form-string',
]);
const CURL_VALUE_FLAGS = new Set([
  '-H',
  '--header',
  '-o',
  '--output',
  '-u',
  '--user',
  '-A',
  '--user-agent',
  '-e',
  '--referer',
  '-w',
  '--write-out',
  '-m',
  '--max-time',
  '--url',
]);

const CURL_LONG_VALUE_FLAGS = new Set([...CURL_DATA, ...CURL_VALUE_FLAGS, '--request']);

/** Short `gh` options that take a value (pflag: the rest of a cluster, or the next word). */
const GH_VALUE_LETTERS = 'RbFfHXqtp';
/** Short `curl` options that take a value. */
const CURL_VALUE_LETTERS = 'dFXHouAewmTbcKrxEUQyYzCP';

/**
 * Expands short-option clusters the way getopt and pflag read them: `-sSd x` is `-s -S -d x`,
 * `-dfoo` is `-d foo`, `-ab` is `-a -b`; a value letter takes the rest of its cluster.
 */
export function expandShortOptions(
  args: readonly string[],
  valueLetters: string,
  valueLongFlags: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  let valueNext = false;
  for (const [index, arg] of args.entries()) {
    if (valueNext || !arg.startsWith('-') || arg === '-') {
      out.push(arg);
      valueNext = false;
    } else if (arg === '--') {
      return [...out, ...args.slice(index)];
    } else if (arg.startsWith('--')) {
      out.push(arg);
      valueNext = !arg.includes('=') && valueLongFlags.has(arg);
    } else {
      valueNext = expandCluster(arg, valueLetters, out);
    }
  }
  return out;
}

/** Pushes the options of one `-xyz` cluster; true when its last option waits for a value. */
function expandCluster(arg: string, valueLetters: string, out: string[]): boolean {
  for (let i = 1; i < arg.length; i += 1) {
    const letter = arg[i] ?? '';
    out.push(`-${letter}`);
    if (!valueLetters.includes(letter)) continue;
    const rest = arg.slice(i + 1);
    if (rest === '') return true;
    out.push(rest.startsWith('=') ? rest.slice(1) : rest);
    return false;
  }
  return false;
}

/** A `gh` invocation's arguments with short-option clusters expanded. */
export function ghArgs(args: readonly string[]): string[] {
  return expandShortOptions(args, GH_VALUE_LETTERS, GH_VALUE_FLAGS);
}

/** The positional arguments of a `gh` invocation (flags and their values left out). */
export function ghPositionals(raw: readonly string[]): string[] {
  const args = ghArgs(raw);
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') return [...positionals, ...args.slice(i + 1)];
    if (arg.startsWith('--')) {
      if (!arg.includes('=') && GH_VALUE_FLAGS.has(arg)) i += 1;
    } else if (arg.startsWith('-') && arg.length > 1) {
      if (arg.length === 2 && GH_VALUE_FLAGS.has(arg)) i += 1;
    } else {
      positionals.push(arg);
    }
  }
  return positionals;
}

/** Reads a `gh api ...` invocation (args after `api`). */
export function ghApiCall(raw: readonly string[], stdin: readonly string[]): ApiCall {
  const args = ghArgs(raw);
  const call: ApiCall = { endpoints: [], method: null, fields: [], bodies: [], opaqueBody: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    const [flag, attached] = splitLongFlag(arg);
    const value = attached ?? args[i + 1] ?? '';
    if (flag === '-X' || flag === '--method') call.method = value.toUpperCase();
    else if (['-f', '-F', '--field', '--raw-field'].includes(flag)) addField(call, flag, value);
    else if (flag === '--input') {
      if (value === '-') call.bodies.push(...stdin);
      else call.opaqueBody = true;
    } else if (!arg.startsWith('-')) call.endpoints.push(arg);
    if (attached === undefined && GH_VALUE_FLAGS.has(flag)) i += 1;
  }
  return call;
}

/** Reads a `curl ...` invocation. */
export function curlCall(raw: readonly string[], stdin: readonly string[]): ApiCall {
  const args = expandShortOptions(raw, CURL_VALUE_LETTERS, CURL_LONG_VALUE_FLAGS);
  const call: ApiCall = { endpoints: [], method: null, fields: [], bodies: [], opaqueBody: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    const [flag, attached] = splitLongFlag(arg);
    const value = attached ?? args[i + 1] ?? '';
    const takesValue = CURL_DATA.has(flag) || CURL_VALUE_FLAGS.has(flag) || flag === '-X';
    if (flag === '-X' || flag === '--request') call.method = value.toUpperCase();
    else if (CURL_DATA.has(flag)) addCurlData(call, value, stdin);
    else if (flag === '--url') call.endpoints.push(value);
    else if (!arg.startsWith('-')) call.endpoints.push(arg);
    if (attached === undefined && (takesValue || flag === '--request')) i += 1;
  }
  return call;
}

/** True when `invocation` is `gh <group> <verb>` (e.g. `gh pr review`). */
export function isGh(
  invocation: ShellInvocation,
  group: string,
  verbs: readonly string[],
): boolean {
  if (invocation.program !== 'gh') return false;
  const [first, second] = ghPositionals(invocation.args);
  return first === group && second !== undefined && verbs.includes(second);
}

/** Splits `--field=key=v` into the flag and its attached value. */
function splitLongFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  if (!arg.startsWith('--') || eq === -1) return [arg, undefined];
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}

function addField(call: ApiCall, flag: string, field: string): void {
  const typed = flag === '-F' || flag === '--field';
  const value = field.slice(field.indexOf('=') + 1);
  if (typed && value.startsWith('@')) call.opaqueBody = true;
  call.fields.push(field);
}

function addCurlData(call: ApiCall, value: string, stdin: readonly string[]): void {
  const at = value.indexOf('@');
  if (value.startsWith('@') || /^[A-Za-z_]+=@/.test(value)) {
    if (value.slice(at + 1) === '-') call.bodies.push(...stdin);
    else call.opaqueBody = true;
    return;
  }
  call.bodies.push(value);
}
