import { describe, it, expect } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { sandboxCircuitBreakerMiddleware } from './sandbox-circuit-breaker.middleware.js';
import { toolErrorsMiddleware } from './tool-errors.middleware.js';
import { runAgent, throwingTool, toolMessages } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';
import { tool } from 'langchain';
import { z } from 'zod';

const execTurns = (n: number) =>
  Array.from({ length: n }, () => toolTurn([{ name: 'execute', args: {} }]));

/** A tool that throws the scripted errors in turn, then succeeds. */
function flakyTool(errors: Error[]) {
  let calls = 0;
  const t = tool(
    async () => {
      calls += 1;
      const error = errors.shift();
      if (error) throw error;
      return 'ok';
    },
    { name: 'execute', description: 'run a command', schema: z.object({}).passthrough() },
  );
  return { tool: t, calls: () => calls };
}

const outage = () => new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox unreachable');

describe('sandboxCircuitBreakerMiddleware', () => {
  it('after K consecutive infrastructure failures stops calling tools and ends the run', async () => {
    const events = new RecordingEvents();
    const flaky = flakyTool([outage(), outage(), outage(), outage()]);
    const model = new ScriptedChatModel(execTurns(6));
    const breaker = sandboxCircuitBreakerMiddleware({ threshold: 3, events });

    const out = await runAgent(model, [flaky.tool], [toolErrorsMiddleware(), breaker]);

    expect(flaky.calls()).toBe(3);
    expect(model.calls).toHaveLength(3);
    expect(out.exitStatus).toBe('exit_environment_error');
    expect(out.messages.at(-1)?.content).toMatch(/sandbox failed 3 times in a row/);
    expect(events.events).toEqual([
      {
        type: 'circuit_breaker_open',
        consecutiveFailures: 3,
        lastError: 'DEPENDENCY_UNAVAILABLE: sandbox unreachable',
      },
    ]);
  });

  it('a success in between resets the count', async () => {
    const flaky = flakyTool([outage(), outage()]);
    const model = new ScriptedChatModel([...execTurns(4), textTurn('done')]);
    const breaker = sandboxCircuitBreakerMiddleware({
      threshold: 3,
      events: new RecordingEvents(),
    });
    const failOnceMore = throwingTool('other', outage());

    const out = await runAgent(
      model,
      [flaky.tool, failOnceMore],
      [toolErrorsMiddleware(), breaker],
    );

    expect(out.exitStatus).toBeUndefined();
    expect(out.messages.at(-1)?.content).toBe('done');
  });

  it('ordinary tool errors are not infrastructure failures', async () => {
    const failing = throwingTool('execute', new AppError('BAD_REQUEST', 'no such file'));
    const model = new ScriptedChatModel([...execTurns(4), textTurn('done')]);
    const breaker = sandboxCircuitBreakerMiddleware({
      threshold: 2,
      events: new RecordingEvents(),
    });

    const out = await runAgent(model, [failing], [toolErrorsMiddleware(), breaker]);

    expect(out.exitStatus).toBeUndefined();
    expect(toolMessages(out.messages).every((m) => m.status === 'error')).toBe(true);
  });

  it('uses the injected classifier', async () => {
    const failing = throwingTool('execute', new Error('ECONNRESET'));
    const model = new ScriptedChatModel(execTurns(4));
    const breaker = sandboxCircuitBreakerMiddleware({
      threshold: 2,
      classify: (error) => error instanceof Error && error.message.includes('ECONNRESET'),
      events: new RecordingEvents(),
    });

    const out = await runAgent(model, [failing], [toolErrorsMiddleware(), breaker]);

    expect(out.exitStatus).toBe('exit_environment_error');
  });
});
