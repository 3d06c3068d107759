// The durable floor: what the distributed ingress's durable work costs when written plainly, with
// nothing of Caravel's. A `node:http` server that verifies `X-Hub-Signature-256` on the raw bytes,
// parses the body, claims the delivery with one `INSERT … ON CONFLICT DO NOTHING` in PostgreSQL,
// publishes one message to JetStream with its `Nats-Msg-Id` and waits for the ack, answers, then
// settles the claim with an `UPDATE` (as the ingress does, after the answer). Its commits do not
// wait for the disk (`synchronous_commit = off`), as the ingress's claims (`relaxedCommits`). Same
// PostgreSQL and NATS as the ingress, a table and a stream of its own, removed on close. Returns
// { url, close, handled }.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { BENCH_SECRETS } from './signing.mjs';

function signatureMatches(raw, header) {
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', BENCH_SECRETS.github).update(raw).digest('hex')}`,
  );
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function answer(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startDurableFloor({ natsUrl, postgresUrl }) {
  const { default: pg } = await import('pg');
  const { connect } = await import('@nats-io/transport-node');
  const { jetstream, jetstreamManager } = await import('@nats-io/jetstream');
  const suffix = randomBytes(4).toString('hex');
  const table = `bench_floor_deliveries_${suffix}`;
  const stream = `BENCH_FLOOR_${suffix}`;
  const pool = new pg.Pool({
    connectionString: postgresUrl,
    max: 10,
    options: '-c synchronous_commit=off',
  });
  await pool.query(
    `CREATE TABLE ${table} (id text PRIMARY KEY, payload jsonb NOT NULL, settled_at timestamptz)
       WITH (fillfactor = 50)`,
  );
  const nats = await connect({ servers: natsUrl, noAsyncTraces: true });
  const manager = await jetstreamManager(nats);
  await manager.streams.add({ name: stream, subjects: [`${stream}.>`] });
  const js = jetstream(nats);
  let handled = 0;
  // Settles not yet done (they run after the answer): close waits for them.
  const settling = new Set();

  async function take(request, raw) {
    if (!signatureMatches(raw, request.headers['x-hub-signature-256'])) return [401, {}];
    const text = raw.toString('utf8');
    const payload = JSON.parse(text);
    const id = String(request.headers['x-github-delivery']);
    const claimed = await pool.query(
      `INSERT INTO ${table} (id, payload) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id`,
      [id, text],
    );
    if (claimed.rowCount === 0) return [200, { accepted: false, reason: 'duplicate' }];
    const message = { deliveryId: id, text: payload.comment?.body };
    await js.publish(`${stream}.github`, JSON.stringify(message), { msgID: id });
    handled += 1;
    const settle = pool
      .query(`UPDATE ${table} SET settled_at = now() WHERE id = $1`, [id])
      .catch((error) => process.stderr.write(`settle failed: ${String(error)}\n`))
      .finally(() => settling.delete(settle));
    settling.add(settle);
    return [200, { accepted: true }];
  }

  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      take(request, Buffer.concat(chunks))
        .then(([status, body]) => answer(response, status, body))
        .catch(() => answer(response, 503, { error: 'unavailable' }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    handled: () => handled,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(settling);
      await manager.streams.delete(stream);
      await nats.close();
      await pool.query(`DROP TABLE ${table}`);
      await pool.end();
    },
  };
}
