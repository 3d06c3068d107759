import type { EvalRun } from './eval-run.js';
import { evalRunSchema } from './eval-run.js';
import { predictionsOf, resultsReportOf } from './swebench-files.js';

const base = { costUsd: 0, modelCalls: 1, inputTokens: 1, outputTokens: 1, wallMs: 1 };
const run: EvalRun = {
  runId: 'r1',
  suite: 's',
  config: 'current',
  model: 'scripted',
  createdAt: '2026-12-01T00:00:00Z',
  tasks: [
    {
      taskId: 'b__x-2',
      attempts: [
        { ...base, attempt: 1, resolved: false, exitStatus: 'submitted', patch: 'first\n' },
        { ...base, attempt: 2, resolved: true, exitStatus: 'submitted', patch: 'fix\n' },
      ],
    },
    {
      taskId: 'a__x-1',
      attempts: [{ ...base, attempt: 1, resolved: false, exitStatus: 'exit_error', patch: '' }],
    },
  ],
};

describe('SWE-bench-style files', () => {
  it('writes preds.json with the resolved attempt’s patch, keyed by task id', () => {
    expect(predictionsOf(run)).toEqual({
      'b__x-2': {
        instance_id: 'b__x-2',
        model_name_or_path: 'current (scripted)',
        model_patch: 'fix\n',
      },
      'a__x-1': {
        instance_id: 'a__x-1',
        model_name_or_path: 'current (scripted)',
        model_patch: '',
      },
    });
  });

  it('writes results.json counting resolved, empty and errored tasks', () => {
    expect(resultsReportOf(run)).toMatchObject({
      total_instances: 2,
      submitted_instances: 1,
      completed_instances: 1,
      resolved_instances: 1,
      resolved_ids: ['b__x-2'],
      unresolved_ids: ['a__x-1'],
      empty_patch_ids: ['a__x-1'],
      error_ids: ['a__x-1'],
    });
  });

  it('refuses a run file with a task without attempts, naming the field', () => {
    const result = evalRunSchema.safeParse({ ...run, tasks: [{ taskId: 'x', attempts: [] }] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['tasks', 0, 'attempts']);
  });
});
