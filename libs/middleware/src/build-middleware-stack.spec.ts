import { describe, it, expect } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { tool } from 'langchain';
import { z } from 'zod';
import { buildMiddlewareStack, type MiddlewareStackOptions } from './build-middleware-stack.js';
import { findAppError } from './error-inspection.js';
import { MIDDLEWARE_ORDER, SUBAGENT_MIDDLEWARE } from './middleware-names.js';
import { modelCallTimeoutMiddleware } from './model-call-timeout.middleware.js';
import { modelFallbackMiddleware } from './model-fallback.middleware.js';
import { sandboxCircuitBreakerMiddleware } from './sandbox-circuit-breaker.middleware.js';
import { toolErrorsMiddleware } from './tool-errors.middleware.js';
import { recordingTool, runAgent, throwingTool, toolMessages } from './testing/agent-harness.js';
import { ManualClock, RecordingEvents } from './testing/recording-ports.js';
import { testStackOptions } from './testing/stack-options.js';
import {
  ScriptedChatModel,
  textTurn,
  toolTurn,
  type ScriptedTurn,
} from './testing/scripted-chat-model.js';

/**
 * The stack as the seeds list it, outermost first, with SWE-agent's requery and run limits inside
 * the circuit breaker; spelled out so the test cannot drift with the code.
 */
const SEEDS_ORDER = [
  'prepare-agent-run',
  'sanitize-tool-inputs',
  'model-call-limit',
  'tool-errors',
  'offload-tool-output',
  'exclude-tools',
  'scoped-agents-md',
  'pull-request-creation-guard',
  'pull-request-verdict-guard',
  'message-queue',
  'slack-assistant-status',
  'ensure-no-empty-message',
  'step-limit-notice',
  'sandbox-circuit-breaker',
  'requery',
  'context-window',
  'run-limits',
  'model-fallback',
  'plan-mode',
  'model-retry',
  'strip-empty-thinking',
  'model-call-timeout',
  'message-identity',
];

const stackOptions = testStackOptions;

const replyTool = () => recordingTool('reply', z.object({ text: z.string() }));
const replyTurn = (text: string) => toolTurn([{ name: 'reply', args: { text } }]);

function withBackup(turns: ScriptedTurn[]) {
  const backup = new ScriptedChatModel(turns, 'backup');
  return {
    backup,
    fallbackModel: { modelId: 'backup', provider: 'openai', model: backup, hasCredentials: true },
  };
}

describe('buildMiddlewareStack', () => {
  it('builds the stack in the seeds order, outermost first', () => {
    const stack = buildMiddlewareStack(stackOptions().options);

    expect(stack.map((m) => m.name)).toEqual(SEEDS_ORDER);
    expect([...MIDDLEWARE_ORDER]).toEqual(SEEDS_ORDER);
  });

  it("builds a subagent's stack without the run-wide units, and a plain answer ends it", async () => {
    const { options } = stackOptions();
    const stack = buildMiddlewareStack(options, SUBAGENT_MIDDLEWARE);
    const model = new ScriptedChatModel([textTurn('the answer')]);

    expect(stack.map((m) => m.name)).toEqual(
      SEEDS_ORDER.filter(
        (name) =>
          !/^(prepare-agent-run|message-queue|slack-assistant-status|ensure-no-empty-message|step-limit-notice|pull-request-creation-guard|plan-mode)$/.test(
            name,
          ),
      ),
    );
    const out = await runAgent(model, [replyTool().tool], stack);
    expect(model.calls).toHaveLength(1);
    expect(out.messages.at(-1)?.content).toBe('the answer');
  });

  it('runs a task end to end through the whole stack', async () => {
    const { options } = stackOptions();
    const reply = replyTool();
    const model = new ScriptedChatModel([replyTurn('all done'), textTurn('bye')]);

    const out = await runAgent(model, [reply.tool], buildMiddlewareStack(options));

    expect(reply.received).toEqual([{ text: 'all done' }]);
    expect(out.exitStatus).toBeUndefined();
  });

  it('the timeout is inside the fallback: a timed-out call is retried on the fallback model', async () => {
    const { backup, fallbackModel } = withBackup([replyTurn('answered by backup')]);
    const { options, events, clock } = stackOptions({ fallbackModel, modelRetries: 0 });
    const primary = new ScriptedChatModel(['hang', textTurn('bye')]);
    const called = primary.nextCall();
    const run = runAgent(primary, [replyTool().tool], buildMiddlewareStack(options));

    await called;
    clock.fireAll();
    const out = await run;

    expect(backup.calls).toHaveLength(1);
    expect(primary.calls).toHaveLength(2);
    expect(toolMessages(out.messages).map((m) => m.name)).toEqual(['reply']);
    expect(events.events[0]).toMatchObject({
      type: 'model_fallback',
      reason: expect.stringMatching(/^TIMEOUT/),
    });
  });

  it('with the timeout outside the fallback the same stall fails the run (so the order matters)', async () => {
    const { fallbackModel } = withBackup([textTurn('never used')]);
    const clock = new ManualClock();
    const events = new RecordingEvents();
    const misordered = [
      modelCallTimeoutMiddleware({ timeoutMs: 1000, clock }),
      modelFallbackMiddleware({
        primary: { modelId: 'primary', provider: 'anthropic' },
        fallback: fallbackModel,
        events,
      }),
    ];
    const primary = new ScriptedChatModel(['hang']);
    const called = primary.nextCall();
    const run = runAgent(primary, [replyTool().tool], misordered).then(
      () => undefined,
      (e: unknown) => e,
    );

    await called;
    clock.fireAll();

    expect(findAppError(await run)?.code).toBe('TIMEOUT');
    expect(events.events).toEqual([]);
  });

  it('sanitises inputs before the tool runs and surfaces its failure as a tool message', async () => {
    const seen: unknown[] = [];
    const strict = tool(
      async (args: { path: string }) => {
        seen.push(args);
        throw new AppError('NOT_FOUND', `no file ${args.path}`);
      },
      { name: 'read_file', description: 'read', schema: z.object({ path: z.string() }) },
    );
    const { options } = stackOptions();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'read_file', args: { path: 'a\u0000.ts' } }]),
      replyTurn('could not read it'),
      textTurn('bye'),
    ]);

    const out = await runAgent(model, [strict, replyTool().tool], buildMiddlewareStack(options));

    expect(seen).toEqual([{ path: 'a.ts' }]);
    const [failure] = toolMessages(out.messages);
    expect(failure?.status).toBe('error');
    expect(failure?.content).toBe('Error: read_file failed: NOT_FOUND: no file a.ts');
  });

  it('the breaker sits inside tool-errors: it sees raw failures and trips; outside it never would', async () => {
    const outage = () => new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox down');
    const exec = () => toolTurn([{ name: 'execute', args: {} }]);
    const { options } = stackOptions();
    const inOrder = await runAgent(
      new ScriptedChatModel([exec(), exec(), exec()]),
      [throwingTool('execute', outage()), replyTool().tool],
      buildMiddlewareStack(options),
    );
    expect(inOrder.exitStatus).toBe('exit_environment_error');

    const events = new RecordingEvents();
    const swapped = [
      sandboxCircuitBreakerMiddleware({ threshold: 2, events }),
      toolErrorsMiddleware(),
    ];
    const outOfOrder = await runAgent(
      new ScriptedChatModel([exec(), exec(), exec(), textTurn('gave up')]),
      [throwingTool('execute', outage())],
      swapped,
    );
    expect(outOfOrder.exitStatus).toBeUndefined();
    expect(events.events).toEqual([]);
  });

  it('notifies near the step limit, then ends the run at the limit', async () => {
    const { options, notifier } = stackOptions({ modelCallLimit: 3, stepLimitNoticeAt: 1 });
    const ls = recordingTool('ls');
    const loop = () => toolTurn([{ name: 'ls', args: {} }]);

    const out = await runAgent(
      new ScriptedChatModel([loop(), loop(), loop(), loop()]),
      [ls.tool, replyTool().tool],
      buildMiddlewareStack(options),
    );

    expect(notifier.notices).toEqual([{ threadId: 't-1', used: 2, limit: 3, remaining: 1 }]);
    expect(out.exitStatus).toBe('exit_model_call_limit');
  });

  it('an unreachable sandbox stops the whole stack before the first model call, with one notice', async () => {
    const notices: string[] = [];
    const base = stackOptions().options;
    const options: MiddlewareStackOptions = {
      ...base,
      ports: {
        ...base.ports,
        preparation: {
          ensureSandbox: () =>
            Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox gone')),
          snapshotTurn: () => Promise.resolve(),
          notifyUser: (text) => Promise.resolve(void notices.push(text)),
        },
      },
      isSandboxUnreachable: (e) => findAppError(e)?.code === 'DEPENDENCY_UNAVAILABLE',
    };
    const model = new ScriptedChatModel([replyTurn('never')]);

    const out = await runAgent(model, [replyTool().tool], buildMiddlewareStack(options));

    expect(model.calls).toHaveLength(0);
    expect(out.exitStatus).toBe('exit_environment_error');
    expect(notices).toHaveLength(1);
  });
});
