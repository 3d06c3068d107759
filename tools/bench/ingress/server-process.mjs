// One server under test in its own process (server.mjs), so the load generator does not share its
// event loop.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const SERVER = new URL('./server.mjs', import.meta.url).pathname;

/**
 * Starts `node server.mjs <mode>` and resolves once it prints its URL, with its `pid`, `stop()`,
 * which resolves with the deliveries the server says its handler took (`null` when it does not
 * count), and `gcStart()` / `gcStop()`, which resolves with what its garbage collector did in
 * between (gc.mjs).
 */
export function startServer(mode) {
  const child = spawn(process.execPath, [SERVER, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  let handled = null;
  let gcReported = null;
  const gcStart = () => child.kill('SIGUSR2');
  const gcStop = () =>
    new Promise((done) => {
      gcReported = done;
      child.kill('SIGUSR2');
    });
  child.stderr.on('data', (chunk) => (errors += chunk));
  return new Promise((resolve, reject) => {
    // A fresh PGlite under a load of 10-15 takes minutes; a server that never says so is killed.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${mode} server did not start within 300 s`));
    }, 300_000);
    const stop = () =>
      new Promise((done) => {
        child.once('exit', () => done(handled));
        child.kill('SIGTERM');
      });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const count = /^handled (\d+)/.exec(line);
      if (count) handled = Number(count[1]);
      const gc = /^gc (.+)/.exec(line);
      if (gc) gcReported?.(JSON.parse(gc[1]));
      const found = /^listening (\S+)/.exec(line);
      if (!found) return;
      clearTimeout(timer);
      resolve({ url: found[1], pid: child.pid, stop, gcStart, gcStop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${mode} server exited (${code}): ${errors.trim().split('\n').at(-1)}`));
    });
  });
}
