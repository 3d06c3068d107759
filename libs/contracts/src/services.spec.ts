import {
  CATALOGUE,
  FAMILIES,
  PullRequestHeadMovedV1,
  ReplayEvents,
  RunEvents,
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  SERVICE_NAMES,
  StartRunV1,
  TriggerReceivedV1,
  durableName,
} from './index.js';

describe('durable consumer names', () => {
  it('keeps the names deployments hold, but for those renamed in docs/messaging.md', () => {
    expect([
      durableName('dispatch', TriggerReceivedV1),
      durableName('dispatch', PullRequestHeadMovedV1),
      durableName('dispatch', RunStartedV1),
      durableName('dispatch', RunFinishedV1),
    ]).toEqual([
      'dispatch-triggers',
      'dispatch-head-moves',
      'dispatch-run-started',
      'dispatch-run-finished',
    ]);
    // Were one durable per member (`dashboard-run-started`, `dashboard-replay-step`, …).
    expect(durableName('dashboard', RunEvents)).toBe('dashboard-run-events');
    expect(durableName('dashboard', ReplayEvents)).toBe('dashboard-replay-events');
    // Renamed: were `dispatch-run-steps` and `agent-runner`.
    expect(durableName('dispatch', RunStepV1)).toBe('dispatch-run-step');
    expect(durableName('agent-runner', StartRunV1)).toBe('agent-runner-run-start');
  });

  it('gives every service and message a distinct name a NATS consumer accepts', () => {
    const consumables = [...CATALOGUE, ...FAMILIES];
    const names = SERVICE_NAMES.flatMap((service) =>
      consumables.map((definition) => durableName(service, definition)),
    );
    expect(new Set(names).size).toBe(SERVICE_NAMES.length * consumables.length);
    // Room for a namespace prefix and an ordered consumer's `-pNN`.
    for (const name of names) expect(name).toMatch(/^[a-z0-9-]{1,64}$/);
  });
});
