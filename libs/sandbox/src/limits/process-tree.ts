import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** One process as the host sees it. */
export interface HostProcess {
  readonly pid: number;
  readonly ppid: number;
}

/** Every process's parent, read from `/proc/<pid>/stat`. */
async function processTable(): Promise<HostProcess[]> {
  const names = await readdir('/proc');
  const table = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
        // The command name may hold spaces and parentheses: fields start after the last ')'.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ppid = Number(fields[1]);
        return Number.isInteger(ppid) ? { pid: Number(name), ppid } : undefined;
      }),
  );
  return table.filter((entry): entry is HostProcess => entry !== undefined);
}

/** The processes below `root` (not `root` itself), parents before their children. */
export async function descendants(root: number): Promise<HostProcess[]> {
  const table = await processTable();
  const children = new Map<number, HostProcess[]>();
  for (const entry of table) {
    const list = children.get(entry.ppid) ?? [];
    list.push(entry);
    children.set(entry.ppid, list);
  }
  const found: HostProcess[] = [];
  const queue = [root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * A process's pid in its own (innermost) pid namespace, from the `NSpid` line of its status. Read
 * synchronously (procfs is kernel memory): it is checked after every command.
 */
export function innerPid(pid: number): number | undefined {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // Gone.
  }
  const line = /^NSpid:\s+(.*)$/m.exec(status)?.[1];
  const last = line?.trim().split(/\s+/).pop();
  return last === undefined ? undefined : Number(last);
}

/** A process's command line, arguments joined by spaces. */
export async function commandLine(pid: number): Promise<string> {
  const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return text.split('\0').join(' ');
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already, or never ours to signal.
  }
}

/** What to do with one process when a sandbox is stopped. */
export type StopAction = 'keep' | 'kill' | 'freeze';

/**
 * Stops every process below `root` that `decide` does not keep, without a race against forks:
 * each round freezes (SIGSTOP) what it finds, until a round finds nothing new; then everything
 * frozen that is still below `root` is killed. A stopped process cannot fork, so a fork bomb ends
 * too. `kill` processes are killed at once instead (a process whose parent waits for it: a
 * stopped child would read as done). Resolves with how many processes were signalled.
 */
export async function stopProcessesBelow(
  root: number,
  decide: (process: HostProcess) => Promise<StopAction>,
): Promise<number> {
  const frozen = new Set<number>();
  let killed = 0;
  for (let round = 0; round < 100; round += 1) {
    let fresh = 0;
    for (const entry of await descendants(root)) {
      if (frozen.has(entry.pid)) continue;
      const action = await decide(entry);
      if (action === 'keep') continue;
      signal(entry.pid, action === 'kill' ? 'SIGKILL' : 'SIGSTOP');
      if (action === 'kill') killed += 1;
      else frozen.add(entry.pid);
      fresh += 1;
    }
    if (fresh === 0) break;
  }
  // Only pids still below root: a pid freed meanwhile may already name someone else's process.
  const still = new Set((await descendants(root)).map((entry) => entry.pid));
  for (const pid of frozen) {
    if (!still.has(pid)) continue;
    signal(pid, 'SIGKILL');
    killed += 1;
  }
  return killed;
}
