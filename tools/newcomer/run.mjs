#!/usr/bin/env node
// A newcomer's first hour, as an acceptance test: clones the repository into a temporary directory
// and follows the README's "Quickstart" and "Running distributed" sections as written — the
// commands are read from the README itself, so a changed README is what gets checked — and fails
// when a documented command does not do what the README says.
//
//   npm run newcomer                      (node tools/newcomer/run.mjs)
//   node tools/newcomer/run.mjs --with-tests   also `npm test`, the whole suite (about an hour)
//   node tools/newcomer/run.mjs --keep         keep the clone (its path is printed)
//   node tools/newcomer/run.mjs --repo URL     clone this instead of the repository it sits in
//
// Needs what the README asks for: Node.js, git, bubblewrap and socat, PostgreSQL and NATS with
// JetStream on 127.0.0.1 (`.ci/run` starts them). Where the README's own choice would collide with
// this machine, it says so and substitutes: a documented port that is taken becomes a free one,
// the distributed database is `caravel_newcomer_<id>` (dropped at the end) and its services run
// under their own BUS_NAMESPACE, so nothing of anyone else's on the shared servers is touched.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Background, portFor, sh, userEnv, waitReady } from './processes.mjs';
import { inlineNpmStart, section, shellBlocks } from './readme.mjs';

const { values: flags } = parseArgs({
  options: {
    'with-tests': { type: 'boolean' },
    keep: { type: 'boolean' },
    repo: { type: 'string' },
  },
});
const source = flags.repo ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MINUTE = 60_000;
const FIX_LINE = "+    .replace(/^-+|-+$/g, '');";

const results = [];
const say = (line) => process.stdout.write(`[newcomer] ${line}\n`);

/** One documented claim: passes, or fails with what was seen. */
async function check(name, work) {
  const started = Date.now();
  say(`— ${name}`);
  try {
    const note = await work();
    const seconds = Math.round((Date.now() - started) / 1000);
    results.push({ name, ok: true });
    say(`PASS ${name} (${seconds} s)${note ? `: ${note}` : ''}`);
  } catch (error) {
    results.push({ name, ok: false, reason: error.message });
    say(`FAIL ${name}: ${error.message}`);
  }
}

function expectRun(result, ...wanted) {
  const missing = wanted.filter((text) => !result.output.includes(text));
  if (result.code === 0 && missing.length === 0) return;
  const tail = result.output.trimEnd().split('\n').slice(-25).join('\n');
  throw new Error(
    `exit ${result.code}${missing.length ? `, missing ${JSON.stringify(missing)}` : ''}\n${tail}`,
  );
}

/** A documented port, or a free one when it is taken (said, as a newcomer would notice). */
async function port(documented, what) {
  const chosen = await portFor(documented);
  if (chosen !== documented) say(`port ${documented} (${what}) is taken here: using ${chosen}`);
  return chosen;
}

const clone = join(await mkdtemp(join(tmpdir(), 'caravel-newcomer-')), 'caravel');
// As a home directory is: the sandbox user (bubblewrap runs as nobody under root) must enter it.
await chmod(dirname(clone), 0o755);
const run = (command, { env = {}, minutes = 10 } = {}) =>
  sh(command, { cwd: clone, env: userEnv(env), timeoutMs: minutes * MINUTE });

say(`cloning ${source} into ${clone}`);
const cloned = await sh(`git clone --quiet ${JSON.stringify(source)} ${JSON.stringify(clone)}`, {
  cwd: tmpdir(),
  env: userEnv(),
  timeoutMs: 5 * MINUTE,
});
if (cloned.code !== 0) {
  say(`FAIL git clone: ${cloned.output}`);
  process.exit(1);
}
const readme = await readFile(join(clone, 'README.md'), 'utf8');
const quickstart = section(readme, 'Quickstart');
const distributed = section(readme, 'Running distributed');
const [startBlock, scriptedBlock, fakeBlock] = shellBlocks(quickstart);

await quickstartStart(startBlock ?? []);
await quickstartInline(quickstart);
await scriptedRun(scriptedBlock ?? []);
await fakeModelRun(fakeBlock ?? []);
await runningDistributed(shellBlocks(distributed)[0] ?? [], readme);

const failed = results.filter((r) => !r.ok);
say(`${results.length - failed.length} passed, ${failed.length} failed`);
for (const r of failed) say(`  failed: ${r.name}`);
if (flags.keep) say(`the clone stays at ${clone}`);
else await rm(dirname(clone), { recursive: true, force: true });
process.exit(failed.length === 0 ? 0 : 1);

/** `npm ci && npm start`: Caravel answers /health/ready on the documented URL. */
async function quickstartStart(block) {
  const start = block.find((c) => c.command.includes('npm start'));
  const test = block.find((c) => c.command.includes('npm test'));
  await check(`\`${start?.command}\` answers ${start?.comment}`, async () => {
    const url = /http:\/\/127\.0\.0\.1:(\d+)(\/\S*)/.exec(start?.comment ?? '');
    if (!start || !url) throw new Error('the README no longer shows `npm start` and its URL');
    const chosen = await port(Number(url[1]), 'npm start');
    const server = new Background(start.command, {
      cwd: clone,
      env: userEnv(chosen === Number(url[1]) ? {} : { PORT: String(chosen) }),
    });
    try {
      const seconds = await waitReady(`http://127.0.0.1:${chosen}${url[2]}`, server, 20 * MINUTE);
      const phases = ['initialising the database', 'applying database migrations', 'ready'];
      const unsaid = phases.filter((phase) => !server.output.includes(phase));
      if (unsaid.length) throw new Error(`the first start never said ${unsaid.join(', ')}`);
      return `ready ${seconds} s after npm ci began, each phase said`;
    } catch (error) {
      throw new Error(`${error.message}\n${server.output.slice(-3000)}`);
    } finally {
      await server.stop();
    }
  });
  if (!test) {
    return check('the README shows `npm ci && npm test`', () => {
      throw new Error('it no longer does');
    });
  }
  if (!flags['with-tests'])
    return say(`skipped: \`${test.command}\` (about an hour; --with-tests)`);
  await check(`\`${test.command}\` passes`, async () =>
    expectRun(await run('npm test', { minutes: 120 })),
  );
}

/** `npm start -- help`, and `npm start -- --data-dir … --port …` starting there. */
async function quickstartInline(text) {
  const inline = inlineNpmStart(text);
  const help = inline.find((c) => c === 'npm start -- help');
  await check(`\`${help}\` lists the commands, starting nothing`, async () => {
    if (!help) throw new Error('the README no longer shows `npm start -- help`');
    const result = await run(help, { minutes: 3 });
    expectRun(result, 'Usage: caravel <command>', 'fake-model');
    if (result.output.includes('loading the services'))
      throw new Error('help started the services');
  });
  const moved = inline.find((c) => c.includes('--data-dir') && c.includes('--port'));
  await check(`\`${moved}\` starts with its data and port there`, async () => {
    const [, dir, documented] = /--data-dir (\S+) --port (\d+)/.exec(moved ?? '') ?? [];
    if (!dir || !documented)
      throw new Error('the README no longer shows where to move data and port');
    const dataDir = join(dirname(clone), 'var-lib-caravel');
    say(`data dir ${dir} becomes ${dataDir} (no system directory is written)`);
    const chosen = await port(Number(documented), 'npm start -- --port');
    const command = moved.replace(dir, dataDir).replace(`--port ${documented}`, `--port ${chosen}`);
    const server = new Background(command, { cwd: clone, env: userEnv() });
    try {
      await waitReady(`http://127.0.0.1:${chosen}/health/ready`, server, 10 * MINUTE);
      if (!existsSync(join(dataDir, 'pgdata'))) throw new Error(`no database in ${dataDir}`);
    } finally {
      await server.stop();
    }
  });
}

/** The scripted example fixes the sample; its data kept, the trajectory exports and replays. */
async function scriptedRun(block) {
  const [example] = block;
  await check('the scripted example fixes the sample and leaves a branch', async () => {
    if (!example?.command.includes(' run ')) throw new Error('the README no longer shows the run');
    expectRun(await run(example.command), 'run completed: submitted', FIX_LINE);
  });
  await check(
    '`caravel run --data-dir D` then `trajectory export` and `replay` as written',
    async () => {
      const dataDir = join(dirname(clone), 'run-data');
      const kept = example.command.replace(' run ', ` run --data-dir ${dataDir} `);
      const first = await run(kept);
      expectRun(first, 'run completed: submitted');
      const thread = /^thread ([0-9a-f-]{36}):/m.exec(first.output)?.[1];
      if (!thread) throw new Error('the run printed no thread id');
      const cli = 'node apps/cli/dist/main.js';
      expectRun(
        await run(`${cli} trajectory export ${thread} --data-dir ${dataDir}`),
        'trajectory written to',
      );
      if (!existsSync(join(clone, `${thread}.traj`))) throw new Error(`no ${thread}.traj written`);
      expectRun(
        await run(`${cli} replay ${thread} --data-dir ${dataDir}`),
        'the replayed patch is identical to the recorded submission',
      );
    },
  );
}

/** The fake-model block, as one shell session (its `&` and `kill %1` belong together). */
async function fakeModelRun(block) {
  await check(
    'the fake model block fixes the sample through an OpenAI-compatible server',
    async () => {
      const script = block.map((c) => c.command).join('\n');
      const documented = Number(/fake-model --port (\d+)/.exec(script)?.[1]);
      if (!documented) throw new Error('the README no longer shows `caravel fake-model --port`');
      const chosen = await port(documented, 'fake-model');
      const session = script
        .replaceAll(`:${documented}`, `:${chosen}`)
        .replace(`--port ${documented}`, `--port ${chosen}`);
      const result = await run(session);
      expectRun(
        result,
        'fake model (OpenAI-compatible) listening',
        'run completed: submitted',
        FIX_LINE,
      );
    },
  );
}

/** Each service as its own process on NATS and PostgreSQL, its database created as written. */
async function runningDistributed(block, text) {
  const database = `caravel_newcomer_${randomBytes(3).toString('hex')}`;
  const namespace = `nc${randomBytes(3).toString('hex')}`;
  // `createdb … caravel` and `DATABASE_URL=…/caravel`: the database's name, wherever it is written.
  const named = (command) => command.replace(/([\s/])caravel(?=\s|$)/g, `$1${database}`);
  const services = [];
  say(`database caravel becomes ${database}, BUS_NAMESPACE=${namespace} (shared servers)`);
  try {
    for (const { command } of block.filter((c) => !c.command.includes('/dist/main.js'))) {
      await check(`\`${command}\``, async () =>
        expectRun(await run(named(command), { minutes: 5 })),
      );
    }
    const service = block.find((c) => c.command.includes('/dist/main.js'));
    const ports = defaultPorts(text);
    await check(`\`${service?.command}\`, likewise the other services, each ready`, async () => {
      const first = /apps\/([a-z-]+)\/dist\/main\.js/.exec(service?.command ?? '')?.[1];
      if (!first) throw new Error('the README no longer shows a service command');
      const names = [first, ...Object.keys(ports).filter((name) => name !== first)];
      for (const name of names) {
        const chosen = await port(ports[name], name);
        const command = named(service.command).replace(`apps/${first}/`, `apps/${name}/`);
        const env = { BUS_NAMESPACE: namespace, PORT: String(chosen) };
        services.push({
          name,
          port: chosen,
          server: new Background(command, { cwd: clone, env: userEnv(env) }),
        });
      }
      for (const { name, port: chosen, server } of services) {
        await waitReady(`http://127.0.0.1:${chosen}/health/ready`, server, 5 * MINUTE).catch(
          (error) => {
            throw new Error(`${name}: ${error.message}\n${server.output.slice(-2000)}`);
          },
        );
      }
      return `${services.map((s) => s.name).join(', ')} ready`;
    });
  } finally {
    await Promise.all(services.map((s) => s.server.stop()));
    await run(`dropdb --if-exists -h 127.0.0.1 -U postgres ${database}`, { minutes: 2 });
    await dropStreams(namespace);
  }
}

/** The services' default ports as the README's configuration table gives them. */
function defaultPorts(text) {
  const row = text.split('\n').find((line) => line.startsWith('| `PORT`')) ?? '';
  const ports = {};
  for (const [, port, name] of row.matchAll(/(\d{4}) ([a-z-]+)/g)) {
    // `3000 embedded` is `caravel start`, not a service of its own.
    if (existsSync(join(clone, 'apps', name, 'src', 'main.ts'))) ports[name] = Number(port);
  }
  if (Object.keys(ports).length < 7)
    throw new Error('the README lists no default port per service');
  return ports;
}

/** Removes the streams (and KV buckets) the services declared under `namespace` on NATS. */
async function dropStreams(namespace) {
  // Run inside the clone, whose node_modules has the NATS client.
  const file = join(clone, 'newcomer-drop-streams.mjs');
  await writeFile(
    file,
    `import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
const nc = await connect({ servers: 'nats://127.0.0.1:4222' });
const jsm = await jetstreamManager(nc);
for await (const name of jsm.streams.names()) {
  if (name.startsWith('${namespace}_') || name.startsWith('KV_${namespace}_')) await jsm.streams.delete(name);
}
await nc.close();
`,
  );
  const dropped = await run(`node ${file}`, { minutes: 1 });
  if (dropped.code !== 0) say(`could not remove the ${namespace}_ streams: ${dropped.output}`);
}
