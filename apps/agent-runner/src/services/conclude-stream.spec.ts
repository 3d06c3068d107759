import { jest } from '@jest/globals';
import { LoopExitError } from '@caravel/agent';
import { AppError } from '@caravel/errors';
import type { RunExitStatus } from '@caravel/middleware';
import { FORFEIT_TOOL_NAME } from '@caravel/tools';
import { concludeFailure, concludeStream, type StreamToConclude } from './conclude-stream.js';

const PATCH = 'diff --git a/x b/x\n+x\n';

/** A run double: the recorder and the diff answer only what each case sets up. */
function runOf(
  stream: StreamToConclude['stream'],
  options: { toolsCalled?: string[]; diff?: string | Error; aborted?: boolean } = {},
) {
  const controller = new AbortController();
  if (options.aborted) controller.abort(new Error('interrupted'));
  const flush = jest.fn(() => Promise.resolve());
  const diff = jest.fn(() =>
    options.diff instanceof Error
      ? Promise.reject(options.diff)
      : Promise.resolve(options.diff ?? PATCH),
  );
  const run: StreamToConclude = {
    stream,
    recorder: { toolsCalled: options.toolsCalled ?? ['execute', 'submit'], flush },
    diff,
    signal: controller.signal,
  };
  return { run, flush, diff };
}

const ends = (middlewareExit?: RunExitStatus) => () => Promise.resolve({ middlewareExit });
const throws = (error: Error) => () => Promise.reject(error);

describe('concludeStream', () => {
  it('concludes a submitted run with its diff as the submission', async () => {
    const { run, flush } = runOf(ends());
    expect(await concludeStream(run)).toEqual({
      kind: 'ended',
      conclusion: { exitStatus: 'submitted', submission: PATCH, observation: PATCH },
    });
    expect(flush).not.toHaveBeenCalled();
  });

  it("autosubmits the diff when a middleware ended the run, under that exit's status", async () => {
    const { run } = runOf(ends('exit_model_call_limit'));
    expect(await concludeStream(run)).toMatchObject({
      kind: 'ended',
      conclusion: { exitStatus: 'submitted (exit_cost)', submission: PATCH },
    });
  });

  it('gives the bare exit status when a middleware ended a run that changed nothing', async () => {
    const { run } = runOf(ends('exit_environment_error'), { diff: '' });
    expect(await concludeStream(run)).toMatchObject({
      kind: 'ended',
      conclusion: { exitStatus: 'exit_environment_error', submission: null },
    });
  });

  it('ends with exit_forfeit, keeping the changes, when the last tool the agent called forfeits', async () => {
    const { run } = runOf(ends(), { toolsCalled: ['execute', FORFEIT_TOOL_NAME] });
    expect(await concludeStream(run)).toMatchObject({
      kind: 'ended',
      conclusion: { exitStatus: 'submitted (exit_forfeit)', submission: PATCH },
    });
  });

  it('turns an error into its exit status, autosubmits, says why and publishes the recorded steps', async () => {
    const error = new LoopExitError('exit_total_execution_time', 'commands ran 9 s of 5 s');
    const { run, flush } = runOf(throws(error));
    const ending = await concludeStream(run);
    expect(ending).toMatchObject({
      kind: 'failed',
      error,
      conclusion: {
        exitStatus: 'submitted (exit_total_execution_time)',
        submission: PATCH,
        observation: expect.stringMatching(/: commands ran 9 s of 5 s$/),
      },
    });
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it('still concludes when the error left no sandbox to read a diff from', async () => {
    const { run } = runOf(throws(new AppError('CONFIG_INVALID', 'unknown model x')), {
      diff: new Error('no sandbox'),
    });
    expect(await concludeStream(run)).toMatchObject({
      kind: 'failed',
      conclusion: { exitStatus: 'exit_error', submission: null },
    });
  });

  it('concludes nothing and reads no diff when a new message interrupted the run', async () => {
    const error = new Error('aborted');
    const { run, flush, diff } = runOf(throws(error), { aborted: true });
    expect(await concludeStream(run)).toEqual({ kind: 'interrupted', error });
    expect(flush).toHaveBeenCalledTimes(1);
    expect(diff).not.toHaveBeenCalled();
  });
});

describe('concludeFailure', () => {
  it('concludes work that has no recorder of its own (the attempts of a run)', async () => {
    const ending = await concludeFailure(new AppError('RATE_LIMITED', 'slow down'), {
      signal: new AbortController().signal,
      diff: () => Promise.reject(new Error('no sandbox')),
    });
    expect(ending).toMatchObject({ kind: 'failed', conclusion: { exitStatus: 'exit_api' } });
  });
});
