// Load shapes for the ingress bench: a burst of concurrent deliveries, an open-loop rate, and a
// closed-loop peak (a fixed number of keep-alive connections, each sending as soon as answered).
import { Agent, request } from 'node:http';
import { percentile } from '../bus/measure.mjs';

/** What a server answers when it took a delivery as new (bare NestJS, Caravel's ingress). */
const ACCEPTED = '"accepted":true';

/**
 * POSTs one delivery; resolves with its status, whether the answer says it was accepted, and the
 * time from `since` to the last byte.
 */
function send(agent, base, delivery, since = performance.now()) {
  return new Promise((resolve) => {
    const outgoing = request(
      new URL(delivery.path, base),
      {
        method: 'POST',
        agent,
        headers: { ...delivery.headers, 'content-length': Buffer.byteLength(delivery.body) },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            accepted: body.includes(ACCEPTED),
            ms: performance.now() - since,
          }),
        );
      },
    );
    outgoing.on('error', (error) =>
      resolve({ status: 0, error: error.code ?? String(error), ms: performance.now() - since }),
    );
    outgoing.end(delivery.body);
  });
}

/**
 * Latency percentiles over the 2xx answers, what was not 2xx, how many answers said `accepted`,
 * and the 2xx answers completed per second of the load's wall time.
 */
export function summarise(results, wallMs) {
  const ok = results.filter((r) => r.status >= 200 && r.status < 300);
  const sorted = ok.map((r) => r.ms).sort((a, b) => a - b);
  const failures = {};
  for (const r of results) {
    if (r.status >= 200 && r.status < 300) continue;
    const key = r.error ?? String(r.status);
    failures[key] = (failures[key] ?? 0) + 1;
  }
  return {
    sent: results.length,
    ok: ok.length,
    accepted: ok.filter((r) => r.accepted).length,
    failures,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    rate: (ok.length / wallMs) * 1000,
    wallMs,
  };
}

/** Sends `count` deliveries at once, each on its own connection, as that many senders would. */
export async function burst(base, deliveryOf, count) {
  const deliveries = Array.from({ length: count }, (_, n) => deliveryOf(n));
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const started = performance.now();
  const results = await Promise.all(deliveries.map((delivery) => send(agent, base, delivery)));
  const wallMs = performance.now() - started;
  agent.destroy();
  return summarise(results, wallMs);
}

/**
 * Open loop at `rate` requests per second for `seconds`: request n is due at start + n/rate and
 * its time-to-2xx counts from then, so a server that falls behind shows it in the latencies
 * (no coordinated omission) instead of quietly lowering the rate. On keep-alive sockets (up to
 * 256, one opened whenever every open one is busy) unless `perDelivery`: then each delivery opens
 * a connection of its own and closes it, as GitHub's deliveries arrive.
 */
export async function sustained(base, deliveryOf, rate, seconds, offset = 0, perDelivery = false) {
  const total = Math.round(rate * seconds);
  const deliveries = Array.from({ length: total }, (_, n) => deliveryOf(offset + n));
  const agent = perDelivery
    ? new Agent({ keepAlive: false, maxSockets: Infinity })
    : new Agent({ keepAlive: true, maxSockets: 256 });
  const pending = [];
  const started = performance.now();
  let next = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && started + (next * 1000) / rate <= now) {
        const due = started + (next * 1000) / rate;
        pending.push(send(agent, base, deliveries[next], due));
        next += 1;
      }
      if (next < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const results = await Promise.all(pending);
  const wallMs = performance.now() - started;
  agent.destroy();
  return summarise(results, wallMs);
}

/**
 * The open loop `runs` times, one window after the other on new deliveries: the run with the
 * median p99, with every run's p99 (`p99Runs`) and the counts of all the runs. A p99 of one 10 s
 * window is decided by its worst 50 answers, so one stall of the machine (a neighbour, a
 * checkpoint) moves it; the median of three says what a window usually gives, and the range
 * shows the stalls.
 */
export async function sustainedRuns(base, deliveryOf, rate, seconds, runs, perDelivery = false) {
  const results = [];
  for (let run = 0; run < runs; run += 1)
    results.push(
      await sustained(
        base,
        deliveryOf,
        rate,
        seconds,
        run * Math.round(rate * seconds),
        perDelivery,
      ),
    );
  const byP99 = [...results].sort((a, b) => a.p99 - b.p99);
  const failures = {};
  for (const result of results)
    for (const [what, count] of Object.entries(result.failures))
      failures[what] = (failures[what] ?? 0) + count;
  const sum = (key) => results.reduce((total, result) => total + result[key], 0);
  return {
    ...byP99[Math.floor((byP99.length - 1) / 2)],
    sent: sum('sent'),
    ok: sum('ok'),
    accepted: sum('accepted'),
    failures,
    p99Runs: results.map((result) => result.p99),
  };
}

/**
 * Closed loop: `connections` keep-alive connections, each sending its next delivery as soon as the
 * last one is answered, for `seconds`. What a server completes per second this way is its peak.
 * Deliveries are numbered from `offset`, in the order they are sent.
 */
export async function peak(base, deliveryOf, connections, seconds, offset = 0) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const results = [];
  let next = offset;
  const started = performance.now();
  const until = started + seconds * 1000;
  const lanes = Array.from({ length: connections }, async () => {
    while (performance.now() < until) {
      const delivery = deliveryOf(next);
      next += 1;
      results.push(await send(agent, base, delivery));
    }
  });
  await Promise.all(lanes);
  const wallMs = performance.now() - started;
  agent.destroy();
  return summarise(results, wallMs);
}
