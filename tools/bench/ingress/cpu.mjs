// Where a delivery's CPU goes during a load: the server's process, PostgreSQL's processes, the
// NATS server and the load generator (this process), from the kernel's per-process tick counts.
// The machine's cores are shared by all four, so the peak a server can reach is bounded by their
// sum: the bench prints it next to the peak it measured.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** User + system ticks and the command name of a process; null once it is gone. */
function statOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** Ticks of every process whose command name is `name`. */
function ticksNamed(name) {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat?.name === name) ticks += stat.ticks;
  }
  return ticks;
}

/** CPU seconds used so far by the server, PostgreSQL, NATS and this process. */
export function cpuSnapshot(serverPid) {
  const self = process.cpuUsage();
  return {
    server: (statOf(serverPid)?.ticks ?? 0) / TICKS_PER_SECOND,
    postgres: ticksNamed('postgres') / TICKS_PER_SECOND,
    nats: ticksNamed('nats-server') / TICKS_PER_SECOND,
    loadGenerator: (self.user + self.system) / 1e6,
  };
}

/** Microseconds of CPU a delivery cost each party between two snapshots, and their sum. */
export function cpuPerDelivery(before, after, deliveries) {
  const per = (key) => ((after[key] - before[key]) * 1e6) / Math.max(1, deliveries);
  const parts = {
    server: per('server'),
    postgres: per('postgres'),
    nats: per('nats'),
    loadGenerator: per('loadGenerator'),
  };
  return { ...parts, total: Object.values(parts).reduce((sum, value) => sum + value, 0) };
}

/** One line: each party's µs a delivery, and the rate the cores allow at that cost. */
export function cpuLine(cpu, cores) {
  const us = (value) => `${Math.round(value)} µs`;
  const ceiling = Math.round((cores * 1e6) / cpu.total);
  return (
    `${''.padEnd(37)} CPU a delivery: server ${us(cpu.server)}, PostgreSQL ${us(cpu.postgres)}, ` +
    `NATS ${us(cpu.nats)}, load generator ${us(cpu.loadGenerator)}; ` +
    `${us(cpu.total)} in all: ${cores} cores allow ${ceiling.toLocaleString('en-US')}/s\n`
  );
}
