import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './metrics-registry.js';
import { scrapedGauge } from './scraped-gauge.js';

// Every Caravel metric, defined once. Labels are bounded sets (a route pattern, a message
// pattern, a source, an outcome, a model): never a thread, run, repository or person.

/** Seconds, from a millisecond HTTP request to a minute-long command. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function counter<L extends string>(name: string, help: string, labelNames: readonly L[]) {
  return new Counter<L>({ name, help, labelNames, registers: [metricsRegistry] });
}

function latency<L extends string>(name: string, help: string, labelNames: readonly L[]) {
  return new Histogram<L>({
    name,
    help,
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [metricsRegistry],
  });
}

export const httpRequests = counter(
  'caravel_http_requests_total',
  'HTTP requests answered, by method, route pattern and status code.',
  ['method', 'route', 'status'],
);
export const httpRequestDuration = latency(
  'caravel_http_request_duration_seconds',
  'Time to answer an HTTP request, by method and route pattern.',
  ['method', 'route'],
);
export const webhooks = counter(
  'caravel_webhooks_total',
  'Webhook deliveries received, by source and outcome (accepted, recorded, duplicate, ignored, or the refusal code).',
  ['source', 'outcome'],
);
export const triggersRefused = counter(
  'caravel_triggers_refused_total',
  'Triggers dispatch refused before creating anything, by source and check (public_repo_gate, repository_access).',
  ['source', 'check'],
);
export const busPublished = counter(
  'caravel_bus_published_total',
  'Messages published on the bus, by message pattern and outcome (stored, duplicate).',
  ['message', 'outcome'],
);
export const busDeliveries = counter(
  'caravel_bus_deliveries_total',
  'Deliveries handled, by message pattern and settlement (ack, nak, or term: dead-lettered).',
  ['message', 'settlement'],
);
export const busHandlerDuration = latency(
  'caravel_bus_handler_duration_seconds',
  'Time a handler took on one delivery, by message pattern.',
  ['message'],
);
export const runsFinished = counter(
  'caravel_runs_finished_total',
  'Agent runs ended on this runner, by outcome and exit status.',
  ['outcome', 'exit_status'],
);
export const modelCalls = counter(
  'caravel_model_calls_total',
  "Model calls the agent's steps made, by model.",
  ['model'],
);
export const modelTokens = counter(
  'caravel_model_tokens_total',
  'Tokens the model calls used, by model and direction (input, output).',
  ['model', 'direction'],
);
export const modelCost = counter(
  'caravel_model_cost_dollars_total',
  'What the model calls cost, in US dollars, by model (where the price is known).',
  ['model'],
);
export const sandboxAcquires = counter(
  'caravel_sandbox_acquires_total',
  'Sandboxes acquired for threads, by outcome (ok, failed).',
  ['outcome'],
);
export const sandboxExecDuration = latency(
  'caravel_sandbox_exec_duration_seconds',
  'Time a command took in a sandbox, by outcome (ok, failed, timed_out).',
  ['outcome'],
);
export const dispatchQueueRuns = scrapedGauge(
  'caravel_dispatch_queue_runs',
  'Runs in the fair-share queue now, by state (waiting for room, active).',
  ['state'],
);
export const busConsumerBacklog = scrapedGauge(
  'caravel_bus_consumer_backlog_messages',
  'Messages a durable consumer has not finished, by consumer and state (waiting: not handed to a handler yet; in_handlers: handed out, not settled).',
  ['consumer', 'state'],
);
export const databasePoolConnections = scrapedGauge(
  'caravel_database_pool_connections',
  'The PostgreSQL pool of this process, by state (open, idle, and queries waiting for a connection).',
  ['state'],
);
