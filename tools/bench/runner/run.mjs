#!/usr/bin/env node
// Runner benchmark: the cost of an agent step through Caravel's agent (the whole middleware stack
// with the loop discipline on, the curated tools and their LangChain adapter) against a bare
// LangGraph ReAct agent (the floor) with the same zero-latency scripted model, both streamed as
// the runner streams a run (durability 'sync', updates), on MemorySaver and on PostgresSaver,
// measured in the same run and reported as ratios. Each run must make exactly `steps` model calls
// and get `steps` tool results, the last one `submit`'s: the bench fails (exit 1) when not.
// Then the reviewer's agent per step (its middleware and tools, no checkpointer, as a review run
// builds it), against the coding agent's step and a bare agent invoked the same way; the bench
// fails when a review run does not make its calls and exactly one publish_review.
// Then the heap an idle thread's checkpoints cost.
//   node tools/scripts/build.mjs && node --expose-gc tools/bench/runner/run.mjs \
//     [--steps 40] [--runs 5] [--threads 200] [--database-url postgres://...] [--no-postgres]
//     [--unfolded: also Caravel's agent with one graph node per middleware hook, as before the fold]
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { MemorySaver } from '@langchain/langgraph';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { printSummary, row as summaryRow } from '../summary.mjs';
import pg from 'pg';
import { PROMPT_ID, bareAgent, caravelAgent, cleanSandbox } from './agents.mjs';
import { bareInvokeRun, reviewerRun } from './reviewer.mjs';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '40' },
    runs: { type: 'string', default: '5' },
    threads: { type: 'string', default: '200' },
    'database-url': {
      type: 'string',
      default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    'no-postgres': { type: 'boolean', default: false },
    unfolded: { type: 'boolean', default: false },
  },
});
const STEPS = Number(values.steps);
const RUNS = Number(values.runs);
const THREADS = Number(values.threads);
if (!(STEPS >= 2 && RUNS >= 1 && THREADS >= 0)) fail('--steps must be >= 2 and --runs >= 1');

function fail(message) {
  process.stderr.write(`runner bench FAILED: ${message}\n`);
  process.exit(1);
}

/** Streams one run as the runner does and checks that the scripted steps happened. */
async function measuredRun(built, thread, steps) {
  const config = { configurable: { thread_id: thread } };
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const stream = await built.agent.stream(
    { messages: [new HumanMessage({ id: PROMPT_ID, content: 'go' })] },
    { ...config, durability: 'sync', streamMode: 'updates', recursionLimit: built.recursionLimit },
  );
  let updates = 0;
  for await (const update of stream) updates += Object.keys(update).length;
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const state = await built.agent.graph.getState(config);
  const results = (state.values.messages ?? []).filter((m) => ToolMessage.isInstance(m));
  const last = results.at(-1);
  if (built.model.calls.length !== steps || results.length !== steps)
    fail(
      `${thread}: ${built.model.calls.length} model calls and ${results.length} tool results, ` +
        `expected ${steps} of each`,
    );
  if (last?.name !== 'submit' || last.status === 'error')
    fail(`${thread}: the run did not end with a successful submit (last result: ${last?.name})`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, updates };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Checkpoints a thread holds in a MemorySaver, and their serialised bytes (writes included). */
function memoryFootprint(saver, thread) {
  const checkpoints = Object.values(saver.storage[thread]?.[''] ?? {});
  let bytes = 0;
  for (const [checkpoint, metadata] of checkpoints) bytes += checkpoint.length + metadata.length;
  for (const [key, writes] of Object.entries(saver.writes))
    if (JSON.parse(key)[0] === thread)
      for (const write of Object.values(writes)) bytes += write[2].length;
  return { checkpoints: checkpoints.length, bytes };
}

async function postgresFootprint(pool, schema, thread) {
  const { rows } = await pool.query(
    `SELECT (SELECT count(*) FROM ${schema}.checkpoints WHERE thread_id = $1) AS checkpoints,
            (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${schema}.checkpoint_blobs
              WHERE thread_id = $1) +
            (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${schema}.checkpoint_writes
              WHERE thread_id = $1) AS bytes`,
    [thread],
  );
  return { checkpoints: Number(rows[0].checkpoints), bytes: Number(rows[0].bytes) };
}

/** Alternates bare and Caravel runs on one saver; medians per step, and the last run's footprint. */
async function compare(label, saver, footprint, sandbox) {
  const agents = {
    bare: (runId) => bareAgent({ steps: STEPS, checkpointer: saver, runId }),
    caravel: (runId) => caravelAgent({ steps: STEPS, checkpointer: saver, sandbox, runId }),
  };
  if (values.unfolded)
    agents.unfolded = (runId) =>
      caravelAgent({ steps: STEPS, checkpointer: saver, sandbox, runId, fold: false });
  for (const [name, build] of Object.entries(agents))
    await measuredRun(build(`warm-${name}`), `${label}-warm-${name}`, STEPS);
  const result = {};
  for (const name of Object.keys(agents)) result[name] = { wall: [], cpu: [], updates: 0 };
  for (let i = 0; i < RUNS; i += 1)
    for (const [name, build] of Object.entries(agents)) {
      const thread = `${label}-${name}-${i}`;
      const run = await measuredRun(build(thread), thread, STEPS);
      result[name].wall.push(run.wallMs / STEPS);
      result[name].cpu.push(run.cpuMs / STEPS);
      result[name].updates = run.updates;
      result[name].footprint = await footprint(thread);
    }
  return result;
}

function report(label, result) {
  const b = result.bare;
  const line = (name, r) => {
    const ratio =
      r === b
        ? ''
        : `   x${(median(r.wall) / median(b.wall)).toFixed(2)} wall` +
          ` x${(median(r.cpu) / median(b.cpu)).toFixed(2)} CPU`;
    return (
      `  ${name.padEnd(8)} ${median(r.wall).toFixed(2).padStart(7)} ms/step wall ` +
      `${median(r.cpu).toFixed(2).padStart(7)} ms/step CPU  ` +
      `${String(r.updates).padStart(4)} updates  ${String(r.footprint.checkpoints).padStart(4)} ` +
      `checkpoints ${(r.footprint.bytes / 1024).toFixed(0).padStart(6)} KiB${ratio}\n`
    );
  };
  process.stdout.write(
    `${label}\n${Object.entries(result)
      .map(([name, r]) => line(name, r))
      .join('')}`,
  );
  const saver = label.split(' ')[0];
  summary.push(
    summaryRow({
      what: `agent step, ${saver}, CPU (ms)`,
      value: median(result.caravel.cpu),
      floor: 'bare LangGraph agent',
      floorValue: median(b.cpu),
      goal: '<= x1.3',
      met: median(result.caravel.cpu) <= 1.3 * median(b.cpu),
    }),
  );
}

const summary = [];

/**
 * The reviewer's agent per step against the coding agent's (MemorySaver, measured just before)
 * and against a bare LangGraph agent invoked without a checkpointer, as the reviewer runs.
 */
async function reviewerReport(coding) {
  const runs = { bare: [], reviewer: [] };
  await bareInvokeRun(STEPS, fail);
  await reviewerRun(STEPS, fail);
  for (let i = 0; i < RUNS; i += 1) {
    runs.bare.push(await bareInvokeRun(STEPS, fail));
    runs.reviewer.push(await reviewerRun(STEPS, fail));
  }
  const perStep = (list, key) => median(list.map((r) => r[key] / STEPS));
  const [bareCpu, reviewerCpu, codingCpu] = [
    perStep(runs.bare, 'cpuMs'),
    perStep(runs.reviewer, 'cpuMs'),
    median(coding.cpu),
  ];
  process.stdout.write(
    `reviewer (no checkpointer)\n` +
      `  bare     ${perStep(runs.bare, 'wallMs').toFixed(2).padStart(7)} ms/step wall ` +
      `${bareCpu.toFixed(2).padStart(7)} ms/step CPU\n` +
      `  reviewer ${perStep(runs.reviewer, 'wallMs').toFixed(2).padStart(7)} ms/step wall ` +
      `${reviewerCpu.toFixed(2).padStart(7)} ms/step CPU   x${(reviewerCpu / bareCpu).toFixed(2)} ` +
      `CPU of bare, x${(reviewerCpu / codingCpu).toFixed(2)} of the coding agent's step\n`,
  );
  summary.push(
    summaryRow({
      what: 'reviewer step, CPU (ms)',
      value: reviewerCpu,
      floor: "coding agent's step (MemorySaver)",
      floorValue: codingCpu,
      goal: '<= x1.0',
      met: reviewerCpu <= codingCpu,
    }),
  );
}

/** The heap idle threads cost: each ran one `no_op` and `submit` and now sits in a MemorySaver. */
async function idleThreads(build) {
  const saver = new MemorySaver();
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < THREADS; i += 1) await measuredRun(build(saver, `idle-${i}`), `idle-${i}`, 2);
  global.gc?.();
  return (process.memoryUsage().heapUsed - before) / THREADS / 1024;
}

const workdir = await mkdtemp(join(tmpdir(), 'caravel-bench-runner-'));
const sandbox = cleanSandbox(workdir);
process.stdout.write(
  `runner bench: ${RUNS} runs of ${STEPS} steps (${STEPS - 1} no_op + submit) per agent and ` +
    `saver, zero-latency scripted model; load average ${loadavg()[0].toFixed(2)}\n`,
);

const memory = new MemorySaver();
const onMemory = await compare(
  'memory',
  memory,
  async (thread) => memoryFootprint(memory, thread),
  sandbox,
);
report('MemorySaver', onMemory);
await reviewerReport(onMemory.caravel);

if (!values['no-postgres']) {
  const schema = `bench_runner_${process.pid}`;
  const pool = new pg.Pool({ connectionString: values['database-url'], max: 2 });
  const saver = PostgresSaver.fromConnString(values['database-url'], { schema });
  try {
    await pool.query(`CREATE SCHEMA ${schema}`);
    await saver.setup();
    report(
      `PostgresSaver (${values['database-url'].replace(/\/\/[^@]*@/, '//')})`,
      await compare('pg', saver, (thread) => postgresFootprint(pool, schema, thread), sandbox),
    );
  } finally {
    await saver.end();
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
  }
}

if (THREADS > 0) {
  const bare = await idleThreads((saver) => bareAgent({ steps: 2, checkpointer: saver }));
  const caravel = await idleThreads((saver, runId) =>
    caravelAgent({ steps: 2, checkpointer: saver, sandbox, runId }),
  );
  process.stdout.write(
    `idle threads (${THREADS}, one no_op + submit each, MemorySaver): bare ${bare.toFixed(1)} KiB, ` +
      `caravel ${caravel.toFixed(1)} KiB heap per thread` +
      `${global.gc ? '' : ' (run node --expose-gc for a steadier figure)'}\n`,
  );
}
process.stdout.write(`load average at the end ${loadavg()[0].toFixed(2)}\n`);
printSummary('runner', summary);
await rm(workdir, { recursive: true, force: true });
