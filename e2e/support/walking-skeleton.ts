import { TriggerReceivedV1, runIdForTrigger, type EnvelopeOf } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { fileURLToPath } from 'node:url';

/** A scripted model: one command, one reply, submit. */
export const HELLO_SCRIPT = fileURLToPath(
  new URL('../fixtures/hello.script.yaml', import.meta.url),
);

export interface RunView {
  id: string;
  threadId: string;
  status: string;
  exitStatus: string | null;
}

export interface EventView {
  type: string;
  runId: string | null;
  sequence: number;
  data: { observation?: string };
}

/** A synthetic trigger, as ingress would publish it. */
export function syntheticTrigger(): EnvelopeOf<typeof TriggerReceivedV1> {
  return TriggerReceivedV1.create(
    {
      threadId: randomUUID(),
      source: 'synthetic',
      deliveryId: `e2e-${randomUUID()}`,
      author: { externalId: 'e2e' },
      text: 'walking skeleton: say hello',
      trusted: true,
      options: { model: `scripted:${HELLO_SCRIPT}` },
    },
    { source: 'e2e' },
  );
}

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as T };
}

/** Polls until `probe` returns a value, or fails with the last thing it saw. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const reason = last instanceof Error ? `: ${last.message}` : '';
  throw new Error(`timed out after ${timeoutMs} ms${reason}`);
}

/**
 * Publishes a synthetic trigger and follows it through dispatch, the agent runner and the sandbox
 * broker to a completed run that the dashboard's API lists with its three events.
 */
export async function driveWalkingSkeleton(bus: Bus, dashboardUrl: string): Promise<void> {
  const trigger = syntheticTrigger();
  const ack = await bus.publish(TriggerReceivedV1, trigger);
  expect(ack.duplicate).toBe(false);
  const runId = runIdForTrigger(trigger.id);

  const run = await eventually(async () => {
    const { body } = await getJson<RunView[]>(`${dashboardUrl}/api/runs?limit=200`);
    return body.find((r) => r.id === runId && r.status === 'completed');
  });
  expect(run).toMatchObject({ threadId: trigger.data.threadId, exitStatus: 'submitted' });

  const events = await eventually(async () => {
    const { body } = await getJson<EventView[]>(
      `${dashboardUrl}/api/threads/${trigger.data.threadId}/events`,
    );
    return body.some((e) => e.type === 'evt.run.finished') ? body : undefined;
  });
  // The commands' live output is indexed too; it is checked in the runner scenarios.
  const record = events.filter((e) => e.type !== 'evt.run.output');
  expect(record.map((e) => e.type)).toEqual([
    'evt.run.started',
    'evt.run.step',
    'evt.run.step',
    'evt.run.step',
    'evt.run.finished',
  ]);
  // The command ran in the thread's own git checkout, on the thread's branch.
  expect(record[1]?.data.observation).toContain('## caravel/');
  // The submission is the diff of the run: the file the command created.
  expect(record[3]?.data.observation).toContain('+hello');

  // A redelivered trigger (same envelope id) starts no second run.
  expect((await bus.publish(TriggerReceivedV1, trigger)).duplicate).toBe(true);
  const { body: detail } = await getJson<{ runs: RunView[] }>(
    `${dashboardUrl}/api/threads/${trigger.data.threadId}`,
  );
  expect(detail.runs).toHaveLength(1);
}

export async function expectReady(url: string): Promise<void> {
  const ready = await eventually(async () => {
    const { status, body } = await getJson<{ status: string }>(`${url}/health/ready`);
    return status === 200 ? body : undefined;
  });
  expect(ready.status).toBe('ready');
}
