import type { Clock } from './ports.js';

/** The real clock: Node timers that do not keep the process alive on their own. */
export const systemClock: Clock = {
  setTimer(ms, callback) {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return () => clearTimeout(handle);
  },
  nowMs: () => Date.now(),
};
