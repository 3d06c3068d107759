import {
  CATALOGUE,
  PullRequestHeadMovedV1,
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  SERVICE_NAMES,
  StartRunV1,
  TriggerReceivedV1,
  durableName,
} from './index.js';

describe('durable consumer names', () => {
  it('keeps the names deployments hold, but for the two renamed in docs/messaging.md', () => {
    expect([
      durableName('dispatch', TriggerReceivedV1),
      durableName('dispatch', PullRequestHeadMovedV1),
      durableName('dispatch', RunStartedV1),
      durableName('dispatch', RunFinishedV1),
      durableName('dashboard', RunStartedV1),
      durableName('dashboard', RunStepV1),
      durableName('dashboard', RunOutputV1),
      durableName('dashboard', RunFinishedV1),
      durableName('dashboard', RunAttemptsSelectedV1),
    ]).toEqual([
      'dispatch-triggers',
      'dispatch-head-moves',
      'dispatch-run-started',
      'dispatch-run-finished',
      'dashboard-run-started',
      'dashboard-run-step',
      'dashboard-run-output',
      'dashboard-run-finished',
      'dashboard-run-attempts-selected',
    ]);
    // Renamed: were `dispatch-run-steps` and `agent-runner`.
    expect(durableName('dispatch', RunStepV1)).toBe('dispatch-run-step');
    expect(durableName('agent-runner', StartRunV1)).toBe('agent-runner-run-start');
  });

  it('gives every service and message a distinct name a NATS consumer accepts', () => {
    const names = SERVICE_NAMES.flatMap((service) =>
      CATALOGUE.map((definition) => durableName(service, definition)),
    );
    expect(new Set(names).size).toBe(SERVICE_NAMES.length * CATALOGUE.length);
    // Room for a namespace prefix and an ordered consumer's `-pNN`.
    for (const name of names) expect(name).toMatch(/^[a-z0-9-]{1,64}$/);
  });
});
