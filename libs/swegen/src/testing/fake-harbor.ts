import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the fake writes for one agent's job:
 * - `stats`: today's Harbor: the job `result.json` without `trial_results`, the reward in
 *   `stats.evals[...].reward_stats`, plus the trial directory;
 * - `trial-dir`: the job result carries no reward bucket, only the trial's own `result.json` does;
 * - `exception`: the verifier wrote no reward (`RewardFileNotFoundError` in `exception_info`);
 * - `garbled`: a job `result.json` that is not JSON;
 * - `nothing`: harbor fails before the job starts (exit 1, a message on stderr, no files).
 */
export type FakeHarborLayout = 'stats' | 'trial-dir' | 'exception' | 'garbled' | 'nothing';

/** The fake's behaviour per agent. */
export type FakeHarborPlan = Record<
  'nop' | 'oracle',
  { readonly layout: FakeHarborLayout; readonly reward?: number }
>;

/** A fake `harbor` executable installed in a directory, for tests that put it on PATH. */
export interface FakeHarbor {
  /** The executable. */
  readonly path: string;
  /** Each invocation's arguments, in order. */
  calls(): string[][];
  /** Changes what the next invocations write. */
  plan(plan: FakeHarborPlan): void;
}

/*
 * The fake parses `harbor run` the way Harbor's Typer CLI does for the options a validation uses
 * (unknown option: exit 2, "No such option") and writes Harbor's job layout, swe-gen-harbor.md
 * §2.8: `<jobs-dir>/<job-name>/{config.json, job.log, result.json}` and one trial directory
 * `<task name[:32], trailing _ and - stripped>__<7 characters>/` holding `config.json`,
 * `result.json` (TrialResult), `trial.log`, `agent/` (`oracle.txt` for the Oracle),
 * `verifier/{test-stdout.txt, reward.txt}` and `artifacts/`. Reward buckets are keyed as Python
 * prints a float ("1.0").
 */
const SCRIPT = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const here = __dirname;
const argv = process.argv.slice(2);
fs.appendFileSync(path.join(here, 'harbor.calls.jsonl'), JSON.stringify(argv) + '\n');
const plan = JSON.parse(fs.readFileSync(path.join(here, 'harbor.plan.json'), 'utf8'));
const VALUE = { '-a': 'agent', '--agent': 'agent', '-p': 'path', '--path': 'path',
  '-o': 'jobsDir', '--jobs-dir': 'jobsDir', '--job-name': 'jobName', '-e': 'env', '--env': 'env' };
const FLAG = { '--no-delete': ['delete', false], '--delete': ['delete', true] };
if (argv[0] !== 'run') { console.error('Usage: harbor [OPTIONS] COMMAND'); process.exit(2); }
const o = { delete: true };
for (let i = 1; i < argv.length; i += 1) {
  if (VALUE[argv[i]] && i + 1 < argv.length) o[VALUE[argv[i]]] = argv[++i];
  else if (FLAG[argv[i]]) o[FLAG[argv[i]][0]] = FLAG[argv[i]][1];
  else { console.error('Error: No such option: ' + argv[i]); process.exit(2); }
}
const isTask = o.path && fs.existsSync(path.join(o.path, 'task.toml'))
  && fs.existsSync(path.join(o.path, 'environment')) && fs.existsSync(path.join(o.path, 'instruction.md'));
if (!isTask || !['nop', 'oracle'].includes(o.agent) || o.env !== 'docker' || !o.jobsDir || !o.jobName) {
  console.error('fake harbor: unexpected invocation ' + JSON.stringify(o)); process.exit(2);
}
const step = plan[o.agent];
if (step.layout === 'nothing') { console.error('Error: Cannot connect to the Docker daemon'); process.exit(1); }
const job = path.join(o.jobsDir, o.jobName);
const task = path.basename(o.path);
const trial = task.slice(0, 32).replace(/[_-]+$/, '') + '__' + 'Xk3Pq9a';
const write = (rel, text) => { const f = path.join(job, rel); fs.mkdirSync(path.dirname(f), { recursive: true }); fs.writeFileSync(f, text); };
const now = new Date().toISOString();
const py = (r) => (Number.isInteger(r) ? r.toFixed(1) : String(r));
const failed = step.layout === 'exception';
const exception = failed ? { exception_type: 'RewardFileNotFoundError',
  exception_message: 'No reward file found at /logs/verifier/reward.txt', exception_traceback: '', occurred_at: now } : null;
write('config.json', JSON.stringify({ job_name: o.jobName, jobs_dir: o.jobsDir, agents: [{ name: o.agent }],
  environment: { type: o.env, delete: o.delete }, tasks: [{ path: o.path }] }));
write('job.log', 'job started\n');
write(trial + '/config.json', JSON.stringify({ task: { path: o.path }, trial_name: trial, agent: { name: o.agent } }));
write(trial + '/trial.log', '');
write(trial + '/verifier/test-stdout.txt', 'tests ran\n');
fs.mkdirSync(path.join(job, trial, 'artifacts'), { recursive: true });
fs.mkdirSync(path.join(job, trial, 'agent'), { recursive: true });
if (o.agent === 'oracle') write(trial + '/agent/oracle.txt', 'patching file\n');
if (!failed) write(trial + '/verifier/reward.txt', String(step.reward));
write(trial + '/result.json', JSON.stringify({ id: 'trial-id', task_name: task, trial_name: trial,
  trial_uri: 'file://' + path.join(job, trial), source: null,
  agent_info: { name: o.agent, version: '1.0.0', model_info: null },
  verifier_result: failed ? null : { rewards: { reward: step.reward } },
  exception_info: exception, started_at: now, finished_at: now }, null, 2));
const buckets = step.layout === 'stats' ? { reward: { [py(step.reward)]: [trial] } } : {};
const evals = { [o.agent + '__adhoc']: { n_trials: 1, n_errors: failed ? 1 : 0, metrics: [],
  pass_at_k: {}, reward_stats: buckets, exception_stats: failed ? { RewardFileNotFoundError: [trial] } : {} } };
const result = { id: 'job-id', started_at: now, updated_at: now, finished_at: now, n_total_trials: 1,
  stats: { n_completed_trials: 1, n_errored_trials: failed ? 1 : 0, n_running_trials: 0,
    n_pending_trials: 0, n_cancelled_trials: 0, n_retries: 0, evals } };
write('result.json', step.layout === 'garbled' ? '{"id": "job-id", "stats": ' : JSON.stringify(result, null, 2));
`;

/** Installs a fake `harbor` in `binDir` (created) following `plan`. */
export function installFakeHarbor(binDir: string, plan: FakeHarborPlan): FakeHarbor {
  mkdirSync(binDir, { recursive: true });
  const path = join(binDir, 'harbor');
  writeFileSync(path, `#!${process.execPath}\n${SCRIPT}`);
  chmodSync(path, 0o755);
  const setPlan = (next: FakeHarborPlan): void =>
    writeFileSync(join(binDir, 'harbor.plan.json'), JSON.stringify(next));
  setPlan(plan);
  return {
    path,
    plan: setPlan,
    calls: () => {
      let text = '';
      try {
        text = readFileSync(join(binDir, 'harbor.calls.jsonl'), 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as string[]);
    },
  };
}
