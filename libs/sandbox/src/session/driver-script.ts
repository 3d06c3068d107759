/**
 * The bash programs behind a persistent session.
 *
 * The driver is a long-lived bash that reads framed requests on stdin and answers framed results
 * on stdout. Each command runs in a fresh child bash, in its own process group, that first
 * restores the session state (exported variables, functions, cwd) and saves it again on exit. So
 * a timed-out command can be killed by process group without touching the driver, and a command
 * that calls `exit` or `exec` cannot end the session. Commands read /dev/null and write to a
 * per-command file; nothing a command prints can reach the framing channel.
 *
 * Request:  `<sentinel> <timeoutSeconds> <outputCap> <commandBytes> <envBytes> <streamCap>\n`
 *           `<command><env>`
 * Response: `<sentinel> <exitCode> <timedOut> <totalBytes> <headBytes> <tailBytes>\n`
 *           `<head><tail><sentinel> END\n`
 *
 * With a non-zero stream cap the driver also sends, while the command runs and before its
 * response, `<sentinel> OUT <n>\n<n bytes>` frames with what the command wrote since the last
 * one, until `streamCap` bytes have been sent. It polls the output file with builtins only (a
 * sleep on a FIFO, `read -N` on an open descriptor): no fork per poll. The command's bash writes
 * a line to that FIFO as it ends, so the poll ends with the command rather than at its next
 * tick (a command killed or replaced by `exec` ends at the tick). Bash variables
 * cannot hold NUL, so streamed chunks lose NUL bytes; the final response never does.
 *
 * A command's bash is started ahead of it: as soon as a command has answered, the driver forks
 * and execs the next command's bash, which restores the saved state and waits for its number on
 * a FIFO; the driver writes the command's script and that number when the command comes. So the
 * command pays for no fork, exec or restore, only a wake-up; a bash killed while it waited is
 * replaced before it is used. Nothing more when the command prints nothing: the output's size is
 * asked of `stat` only when there is output, and spent files (small outputs, old states) are
 * deleted a few dozen at a time by one `rm`. Each output file has its own name, so a background
 * process a command left writing never writes into a later command's output.
 *
 * Timeouts are kept by one watchdog per session, a bash coprocess (its own process group) the
 * driver tells each command's pid and timeout, then `done` when it ends; it answers 1 when it
 * had to TERM (and after the grace KILL) the command's process group, else 0. Bash keeps a
 * coprocess's pipes out of every subshell, so no command can write to it. Killed (by the sweep
 * after a timeout, or by a command), it is started again before the next command. It outlives a
 * driver killed mid-command: on the end of its input it still enforces the timeout on the
 * orphaned command, then exits.
 */

/** Exported names never saved: bash sets them itself on start. */
const UNSAVED = 'SHLVL _ OLDPWD PWD BASHOPTS SHELLOPTS';

/**
 * Sourced by each command's child bash: restore, wait for the command's turn, run, save. `$1` is
 * the state directory, `$2` the state to restore, `$3` where to save the new state (then `$3.ok`
 * marks it complete), `$4` this bash's number, which the driver writes on its standard input
 * (the go FIFO) when the command is ready; other numbers are stale and skipped, the end of the
 * input (the driver is gone) ends it. Saving uses builtins only, so it still works when the
 * process limit is exhausted.
 */
const RUN_SCRIPT = String.raw`__caravel_s=$1 __caravel_in=$2 __caravel_out=$3 __caravel_n=$4
__caravel_restore=''
. "$__caravel_in"
__caravel_go=''
while [ "$__caravel_go" != "$__caravel_n" ]; do IFS= read -r __caravel_go || exit 75; done
exec < /dev/null
SECONDS=0
. "$__caravel_s/env.sh"
__caravel_save() {
  export -n ${UNSAVED}
  { declare -px; declare -f; printf 'cd -- %q\n' "$PWD"; } > "$1"
}
__caravel_finish() {
  trap - EXIT
  eval "$__caravel_restore"
  __caravel_save "$__caravel_out" 2>/dev/null && : > "$__caravel_out.ok"
  printf '\n' >&7 2>/dev/null
  exit "$1"
}
trap '__caravel_finish $?' EXIT
. "$__caravel_s/cmd.sh"
`;

/** Bash's length of `$buf` (spelled here because `${` would open a template placeholder). */
const BUF_LENGTH = '${#buf}';
/** The count and the words of the driver's `junk` array (spelled here for the same reason). */
const JUNK_LENGTH = '${#junk[@]}';
const JUNK_ALL = '${junk[@]}';
/** The watchdog coprocess's input and output: bash keeps them out of every subshell. */
const WD_IN = '${WD[1]}';
const WD_OUT = '${WD[0]}';

/**
 * The driver. Positional parameters: state dir, workdir, kill grace (s), sweep on timeout (0|1),
 * then ulimit values for -u -v (KiB) -f (KiB blocks) -n, each `-` for "leave as is".
 */
const DRIVER_SCRIPT = String.raw`S=$1 W=$2 GRACE=$3 SWEEP=$4
for __l in "u $5" "v $6" "f $7" "n $8"; do
  set -- $__l
  if [ "$2" != - ]; then ulimit -S -H "-$1" "$2" || { echo "ulimit -$1 $2 failed" >&2; exit 70; }; fi
done
umask 077
mkdir -p "$S" "$HOME" || exit 71
umask 022
cd "$W" || exit 72
rm -f "$S/wd.fifo" && mkfifo "$S/wd.fifo" && exec 9<>"$S/wd.fifo" || exit 73
rm -f "$S/done.fifo" && mkfifo "$S/done.fifo" && exec 7<>"$S/done.fifo" || exit 73
rm -f "$S/go.fifo" && mkfifo "$S/go.fifo" && exec 6<>"$S/go.fifo" || exit 73
cat > "$S/run.sh" <<'__CARAVEL_RUN__'
${RUN_SCRIPT}__CARAVEL_RUN__
cur="$S/state.init"
junk=()
export -n ${UNSAVED}
{ declare -px; printf 'cd -- %q\n' "$W"; } > "$cur" || exit 74
LC_ALL=C
set -m
# A write to a watchdog that was killed fails instead of ending the driver (trapped, not ignored,
# so commands still get the default SIGPIPE).
trap : PIPE
watchdog() {
  local pid tmo msg r
  while IFS=' ' read -r pid tmo; do
    IFS= read -r -t "$tmo" msg
    r=$?
    [ "$r" = 0 ] && { echo 0; continue; }
    # End of input before the command's end: the driver is gone; still enforce the timeout.
    [ "$r" -gt 128 ] || read -t "$tmo" -u 9
    kill -TERM -- "-$pid"
    if [ "$r" -gt 128 ]; then
      IFS= read -r -t "$GRACE" msg && { echo 1; continue; }
      kill -KILL -- "-$pid"
      IFS= read -r msg || exit 0
      echo 1
    else
      read -t "$GRACE" -u 9
      kill -KILL -- "-$pid"
      exit 0
    fi
  done
}
watchdog_up() {
  [ -n "$WD_PID" ] && kill -0 "$WD_PID" 2>/dev/null && return
  # No copy of the driver's stderr (which a redirection of the coproc would keep in a spare
  # descriptor): it would hold the driver's output open after the driver ends.
  coproc WD { exec 2>/dev/null 6>&-; watchdog; }
}
# The next command's bash, started ahead of its command: it restores the state and waits on the
# go FIFO, so a command costs no fork, exec or restore of its own. It holds no writer of that
# FIFO (only the driver does), so it ends when the driver does.
n=0
spare_up() {
  n=$((n + 1))
  out="$S/out.$n"
  next="$S/state.$n"
  : > "$out"
  ( exec -c /bin/bash --noprofile --norc "$S/run.sh" "$S" "$cur" "$next" "$n" 6>&- ) < "$S/go.fifo" > "$out" 2>&1 &
  child=$!
}
sweep() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    kill -KILL -1 2>/dev/null || return 0
    read -t 0.05 -u 9
  done
}
stream_out() {
  local left=$1 pause=0.01 alive buf ended=0
  exec 8< "$out" || return 0
  while [ "$left" -gt 0 ]; do
    alive=0
    [ "$ended" = 1 ] || ! kill -0 "$child" 2>/dev/null || alive=1
    while [ "$left" -gt 0 ]; do
      buf=''
      IFS= read -r -N "$((left < 65536 ? left : 65536))" -u 8 buf
      [ -n "$buf" ] || break
      printf '%s OUT %d\n%s' "$sent" "${BUF_LENGTH}" "$buf"
      left=$((left - ${BUF_LENGTH}))
    done
    [ "$alive" = 1 ] || break
    # Woken by the command's end: one last read of its output, then its response.
    read -t "$pause" -u 7 && ended=1
    case $pause in 0.01) pause=0.03 ;; 0.03) pause=0.1 ;; *) pause=0.25 ;; esac
  done
  exec 8<&-
}
printf 'CARAVEL_READY %s\n' "$$"
spare_up
while IFS=' ' read -r sent tmo cap clen elen scap; do
  cmd='' envs=''
  [ "$clen" -gt 0 ] && IFS= read -r -N "$clen" cmd
  [ "$elen" -gt 0 ] && IFS= read -r -N "$elen" envs
  # Wake-ups from commands that were not streamed: left there, they would fill the FIFO.
  while read -t 0 -u 7; do read -r -u 7; done
  printf '%s' "$cmd" > "$S/cmd.sh"
  printf '%s' "$envs" > "$S/env.sh"
  : > "$S/pid"
  watchdog_up
  # Killed since it was started (by a command, or by the sweep): another one.
  kill -0 "$child" 2>/dev/null || { junk+=("$out"); spare_up; }
  printf '%s %s\n' "$child" "$tmo" 2>/dev/null >&"${WD_IN}"
  printf '%s\n' "$n" >&6
  printf '%s\n' "$child" > "$S/pid"
  [ "$scap" -gt 0 ] && stream_out "$scap"
  # Waited with stderr aside: job control would report the finished job there.
  wait "$child" 2>/dev/null
  ec=$?
  timed=0
  printf 'done\n' 2>/dev/null >&"${WD_IN}" && read -r -u "${WD_OUT}" timed || timed=0
  if [ "$timed" = 1 ] && [ "$SWEEP" = 1 ] && [ "$$" -lt 10 ]; then
    sweep
    # The sweep ended the watchdog too: reaped here, quietly; the next command starts another.
    wait "$WD_PID" 2>/dev/null
  fi
  if [ -e "$next.ok" ]; then old=$cur cur=$next; else old=$next; fi
  size=0
  [ -s "$out" ] && size=$(stat -c %s "$out" 2>/dev/null || echo 0)
  if [ "$size" -le "$cap" ]; then head=$size tail=0; else head=$((cap / 2)) tail=$((cap - cap / 2)); fi
  printf '%s %d %d %d %d %d\n' "$sent" "$ec" "$timed" "$size" "$head" "$tail"
  [ "$head" -gt 0 ] && head -c "$head" "$out"
  [ "$tail" -gt 0 ] && tail -c "$tail" "$out"
  printf '%s END\n' "$sent"
  junk+=("$out" "$old" "$next.ok")
  if [ "${JUNK_LENGTH}" -ge 48 ] || [ "$size" -gt 65536 ]; then rm -f "${JUNK_ALL}"; junk=(); fi
  spare_up
done
`;

/** The driver program, ready to pass to `bash -c`. */
export function driverScript(): string {
  return DRIVER_SCRIPT;
}

/** Options that become the driver's positional parameters. */
export interface DriverParameters {
  readonly stateDir: string;
  readonly workdir: string;
  readonly killGraceSeconds: number;
  /**
   * Kill every other process after a timeout; only safe inside a pid namespace, so the driver
   * also refuses unless its own pid is tiny (it is 2 under bubblewrap, never below 10 on a host).
   */
  readonly sweepOnTimeout: boolean;
  readonly ulimits?: {
    readonly processes?: number;
    readonly addressSpaceKiB?: number;
    readonly fileSizeKiB?: number;
    readonly openFiles?: number;
  };
}

/** `bash` arguments that start the driver with the given parameters. */
export function driverArguments(parameters: DriverParameters): string[] {
  const limit = (value: number | undefined): string => (value === undefined ? '-' : String(value));
  const u = parameters.ulimits ?? {};
  return [
    '--noprofile',
    '--norc',
    '-c',
    driverScript(),
    'caravel-session',
    parameters.stateDir,
    parameters.workdir,
    String(parameters.killGraceSeconds),
    parameters.sweepOnTimeout ? '1' : '0',
    limit(u.processes),
    limit(u.addressSpaceKiB),
    limit(u.fileSizeKiB),
    limit(u.openFiles),
  ];
}
