import type { ModelStats } from '../loop/limit-guard.js';
import type { RunStepData } from './from-events.parse.js';
import type { Traj } from './traj.schema.js';
import type { StepRecord } from './trajectory-builder.js';

/** A tool call in the OpenAI / SWE-agent function-calling shape. */
function functionCall(call: RunStepData['toolCalls'][number]): Record<string, unknown> {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  };
}

export function addUsage(stats: ModelStats, step: RunStepData): ModelStats {
  return {
    instanceCost: stats.instanceCost + (step.usage?.costUsd ?? 0),
    tokensSent: stats.tokensSent + (step.usage?.inputTokens ?? 0),
    tokensReceived: stats.tokensReceived + (step.usage?.outputTokens ?? 0),
    // A person's step (takeover) is not a model call; the agent's and a subagent's are.
    apiCalls:
      stats.apiCalls + (step.actor === 'agent' || step.actor.startsWith('subagent:') ? 1 : 0),
  };
}

/** The answers refused before a step's own, each a trajectory step of its own (not history). */
function failedAttemptRecords(step: RunStepData): StepRecord[] {
  return step.failedAttempts.flatMap((attempt): StepRecord[] => [
    {
      kind: 'model_response',
      query: [],
      response: attempt.content,
      thought: attempt.content,
      action: attempt.toolCalls
        .map((call) => `${call.name} ${JSON.stringify(call.args)}`)
        .join('\n'),
    },
    {
      kind: 'requery',
      failure: { kind: attempt.failure, message: attempt.message },
      message: attempt.message,
    },
  ]);
}

/** A step made only of refused answers: the run ended (`exit_format`) before one was accepted. */
export function onlyRefused(step: RunStepData): boolean {
  return (
    step.failedAttempts.length > 0 &&
    step.thought === '' &&
    step.action === '' &&
    step.toolCalls.length === 0
  );
}

export function stepRecords(step: RunStepData, stats: ModelStats): StepRecord[] {
  if (onlyRefused(step)) return [...failedAttemptRecords(step), { kind: 'cost', stats }];
  const records: StepRecord[] = [
    ...failedAttemptRecords(step),
    {
      kind: 'model_response',
      query: [],
      response: step.thought,
      thought: step.thought,
      action: step.action,
    },
  ];
  if (step.toolCalls.length > 0) {
    records.push({
      kind: 'tool_call',
      toolCalls: step.toolCalls.map(functionCall),
      toolCallIds: step.toolCalls.map((call) => call.id),
    });
  }
  records.push({ kind: 'observation', observation: step.observation, executionTime: 0 });
  records.push({ kind: 'cost', stats });
  return records;
}

/** Keeps what SWE-agent's step has no field for: the exact calls, each result, usage, actor. */
export function annotate(traj: Traj, steps: readonly RunStepData[]): void {
  let index = 0;
  steps.forEach((step) => {
    index += step.failedAttempts.length;
    if (onlyRefused(step)) return;
    const target = traj.trajectory[index];
    index += 1;
    if (target === undefined) return;
    target.extra_info = {
      caravel: {
        step: step.step,
        actor: step.actor,
        tool_calls: step.toolCalls,
        results: step.results,
        ...(step.usage === undefined ? {} : { usage: step.usage }),
        ...(step.state === undefined ? {} : { state: step.state }),
      },
    };
  });
}
