#!/usr/bin/env node
// One server under test, in its own process so the load generator does not share its event loop:
//   node tools/bench/ingress/server.mjs bare|octokit|bolt|bolt-express|floor|embedded|distributed
// Prints `listening <url>` once it accepts requests, and on SIGTERM `handled <n>` (the deliveries
// its handler took, when it counts them) before it shuts down cleanly; SIGUSR2 starts and stops a
// count of its garbage collection (gc.mjs).
// `bare` is a NestJS app with one JSON POST route (the floor); `octokit`, `bolt` and
// `bolt-express` are the peers a user would pick instead (peers.mjs); `floor` is the distributed
// ingress's durable work written plainly (durable-floor.mjs); `embedded` is the real
// ingress on the embedded bus in PGlite (as `caravel start` runs it); `distributed` is the real
// ingress on NATS JetStream and PostgreSQL (a fresh namespace and database, removed on exit).
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDurableFloor } from './durable-floor.mjs';
import { reportGcOnSignal } from './gc.mjs';
import { startBoltExpress, startBoltHttp, startOctokit } from './peers.mjs';
import { BENCH_SECRETS } from './signing.mjs';

const mode = process.argv[2];
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A NestJS app with one route that parses the JSON body and answers 200: the floor. */
async function startBare() {
  const { Body, Controller, HttpCode, Module, Post } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  let handled = 0;
  class BareController {
    hook(body) {
      handled += 1;
      return { accepted: typeof body === 'object' };
    }
  }
  const hook = Object.getOwnPropertyDescriptor(BareController.prototype, 'hook');
  Body()(BareController.prototype, 'hook', 0);
  HttpCode(200)(BareController.prototype, 'hook', hook);
  Post(':source')(BareController.prototype, 'hook', hook);
  Controller('webhooks')(BareController);
  class BareModule {}
  Module({ controllers: [BareController] })(BareModule);
  const app = await NestFactory.create(BareModule, { logger: ['fatal'], bodyParser: true });
  await app.listen(0, '127.0.0.1');
  return { url: await app.getUrl(), close: () => app.close(), handled: () => handled };
}

async function ingressHost(runtime) {
  const { IngressModule, ingressConfigFrom } = await import('@caravel/ingress');
  const { startServiceHost } = await import('@caravel/platform');
  const settings = ingressConfigFrom({
    GITHUB_WEBHOOK_SECRET: BENCH_SECRETS.github,
    SLACK_SIGNING_SECRET: BENCH_SECRETS.slack,
    SLACK_BOT_USER_ID: 'UBENCHBOT',
    GITHUB_BOT_HANDLE: 'caravel',
  });
  return startServiceHost({
    runtime,
    modules: [IngressModule.register(settings)],
    port: 0,
    logLevels: ['fatal'],
  });
}

async function startEmbedded() {
  const { openEmbeddedRuntime } = await import('@caravel/platform');
  const dataDir = await mkdtemp(join(tmpdir(), 'caravel-bench-ingress-'));
  const host = await ingressHost(await openEmbeddedRuntime({ name: 'bench-ingress', dataDir }));
  return {
    url: host.url,
    async close() {
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function startDistributed() {
  const { openDistributedRuntime } = await import('@caravel/platform');
  const { deleteJetStreamNamespace } = await import('@caravel/messaging/testing');
  const { default: pg } = await import('pg');
  const suffix = randomBytes(4).toString('hex');
  const name = `caravel_bench_ingress_${suffix}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const databaseUrl = new URL(postgresUrl);
  databaseUrl.pathname = `/${name}`;
  const namespace = `benchingress${suffix}`;
  const host = await ingressHost(
    await openDistributedRuntime({
      name: `bench-ingress-${suffix}`,
      natsUrl,
      databaseUrl: databaseUrl.toString(),
      busNamespace: namespace,
    }),
  );
  return {
    url: host.url,
    async close() {
      await host.close();
      await deleteJetStreamNamespace(natsUrl, namespace);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const starters = {
  bare: startBare,
  octokit: startOctokit,
  bolt: startBoltHttp,
  'bolt-express': startBoltExpress,
  floor: () => startDurableFloor({ natsUrl, postgresUrl }),
  embedded: startEmbedded,
  distributed: startDistributed,
};
reportGcOnSignal();
const start = starters[mode];
if (!start) {
  process.stderr.write(`usage: server.mjs ${Object.keys(starters).join('|')}\n`);
  process.exit(2);
}
const server = await start();
process.stdout.write(`listening ${server.url}\n`);
process.once('SIGTERM', () => {
  if (server.handled) process.stdout.write(`handled ${server.handled()}\n`);
  server
    .close()
    .then(() => process.exit(0))
    .catch((error) => {
      process.stderr.write(`close failed: ${String(error)}\n`);
      process.exit(1);
    });
});
