import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  startFakeOtlpCollector,
  type CollectedSpan,
  type FakeOtlpCollector,
} from './harness/fake-otlp-collector.js';
import { postGithubWebhook } from './harness/github-webhook.js';
import { describeEachPair } from './harness/platform-pairs.js';
import { scenarioOutcome, startScenarioFrom, until } from './harness/scenario-run.js';
import { fakeOpenAiForFile, pairForSuite, SLOW_RUN_TIMEOUT_MS } from './harness/suite-fixtures.js';

// OpenTelemetry across the bus on both pairs: with OTEL_EXPORTER_OTLP_ENDPOINT naming a loopback
// collector, a signed webhook's HTTP span and the reviewer's handling of what it published share
// one trace, and a run's spans — dispatch, runner, the broker's execs — share one trace whose
// every parent is a span that was exported.
const SECRET = 'tracing-secret';
const fake = fakeOpenAiForFile();
let collector: FakeOtlpCollector;
beforeAll(async () => {
  collector = await startFakeOtlpCollector();
});
afterAll(async () => {
  await collector?.close();
});

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });

/** The span of the handler of a message of this type (`process <kind>.<type>`) on this thread. */
function spanOf(type: string, threadId: string): CollectedSpan | undefined {
  return collector.spans.find(
    (s) => s.name.endsWith(type) && s.attributes['caravel.thread_id'] === threadId,
  );
}

function inTrace(traceId: string): CollectedSpan[] {
  return collector.spans.filter((span) => span.traceId === traceId);
}

/** Every span of the trace but its root has its parent among the trace's exported spans. */
function orphans(traceId: string, root: CollectedSpan): string[] {
  const spans = inTrace(traceId);
  const ids = new Set(spans.map((span) => span.spanId));
  return spans.filter((s) => s !== root && !ids.has(s.parentSpanId)).map((s) => s.name);
}

function pullRequestOpened(number: number) {
  return {
    action: 'opened',
    number,
    pull_request: {
      id: 900_000 + number,
      number,
      draft: false,
      head: { sha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821', ref: 'feature/x' },
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: { name: 'widgets', private: true, owner: { login: 'acme', type: 'Organization' } },
    sender: { login: 'octocat', type: 'User' },
  };
}

await describeEachPair('traces', (kind) => {
  const pair = pairForSuite(kind, () => ({
    OPENAI_COMPATIBLE_BASE_URL: fake().baseUrl,
    GITHUB_WEBHOOK_SECRET: SECRET,
    AUTO_REVIEW_REPOS: 'acme/widgets',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  }));

  it("join a webhook's HTTP span and the handling of what it published", async () => {
    const response = await postGithubWebhook(
      pair().host.url,
      SECRET,
      'pull_request',
      pullRequestOpened(100 + Math.floor(Math.random() * 1000)),
    );
    expect(response.status).toBe(200);
    const { threadId } = (await response.json()) as { threadId: string };
    const handled = await until(
      () => Promise.resolve(spanOf('review.requested', threadId)),
      "the reviewer's span",
    );
    const http = inTrace(handled.traceId).find((s) => s.name === 'POST /webhooks/github');
    expect(http).toMatchObject({ service: 'caravel', kind: 2 }); // SERVER
    expect(http?.attributes['http.response.status_code']).toBe(200);
    expect(orphans(handled.traceId, http as CollectedSpan)).toEqual([]);
    expect(collector.refused).toBe(0);
  }, 60_000);

  it(
    "put a run's dispatch, runner and broker spans in one trace",
    async () => {
      fake().enqueue(call('execute', { command: 'echo traced > traced.txt' }), call('submit', {}));
      const started = await startScenarioFrom(
        pair(),
        { prompt: 'Write traced.txt.', options: { model: 'openai-compatible:traced' } },
        { source: 'synthetic', author: 'tracer' },
      );
      const out = await scenarioOutcome(pair(), started, started.runId, SLOW_RUN_TIMEOUT_MS);
      expect(out.run).toMatchObject({ exitStatus: 'submitted' });
      const dispatched = await until(
        () => Promise.resolve(spanOf('trigger.received', started.threadId)),
        "dispatch's span",
      );
      const names = await until(() => {
        const seen = inTrace(dispatched.traceId).map((s) => s.name);
        const done =
          seen.includes('process cmd.run.start') && seen.includes('serve sandbox.*.exec');
        return Promise.resolve(done ? seen : undefined);
      }, "the runner's and the broker's spans");
      expect(names.filter((n) => n === 'serve sandbox.*.exec').length).toBeGreaterThanOrEqual(1);
      // Each model call and tool call of the run is a span of that trace too.
      const steps = await until(() => {
        const seen = inTrace(dispatched.traceId).map((s) => s.name);
        return Promise.resolve(seen.includes('execute_tool submit') ? seen : undefined);
      }, "the run's model and tool spans");
      expect(steps.filter((n) => n === 'chat traced')).toHaveLength(2);
      expect(steps).toContain('execute_tool execute');
      const chat = inTrace(dispatched.traceId).find((s) => s.name === 'chat traced');
      expect(chat?.attributes['gen_ai.operation.name']).toBe('chat');
      expect(orphans(dispatched.traceId, dispatched)).toEqual([]);
    },
    SLOW_RUN_TIMEOUT_MS + 60_000,
  );
});
