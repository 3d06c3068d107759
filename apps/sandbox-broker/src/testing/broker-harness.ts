import { openDatabase, type Database } from '@caravel/db';
import { connectJetStreamBus, createEmbeddedBus, silentLogger, type Bus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { SandboxBrokerClient, type SandboxRequester } from '@caravel/sandbox';
import {
  createTestPostgresDatabase,
  serviceGate,
  testEnvironment,
  type ServiceGate,
} from '@caravel/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxBrokerModule } from '../sandbox-broker.module.js';
import {
  sandboxBrokerConfigOf,
  sandboxBrokerEnvSchema,
  type SandboxBrokerConfig,
} from '../sandbox-broker.config.js';
import { SandboxBrokerService } from '../services/sandbox-broker.service.js';

/** The broker's typed configuration from environment keys, as its schema parses them. */
export function brokerConfig(env: Record<string, string>): SandboxBrokerConfig {
  return sandboxBrokerConfigOf(sandboxBrokerEnvSchema.parse(env));
}

/** Where a broker keeps its bindings: reopened (same data) when the broker restarts. */
export interface BrokerStore {
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

/** One way to run the broker and its clients: a database and a bus for each process. */
export interface BusTarget {
  readonly label: string;
  readonly gate: ServiceGate;
  openStore(): Promise<BrokerStore>;
  /** A bus for a process; `database` is that process's (the embedded bus lives in it). */
  bus(database: Database, name: string): Promise<Bus>;
  /** Whether separate processes share the bus (JetStream) or only one process may (embedded). */
  readonly shared: boolean;
}

/** The embedded bus on PGlite, and NATS JetStream on PostgreSQL (streams under `namespace`). */
export async function busTargets(namespace: string): Promise<BusTarget[]> {
  return [
    {
      label: 'embedded bus + PGlite',
      gate: await serviceGate([]),
      shared: false,
      openStore: async () => {
        const dataDir = await mkdtemp(join(tmpdir(), 'caravel-broker-pglite-'));
        return {
          open: () => openDatabase({ url: `pglite:${dataDir}` }),
          dispose: () => rm(dataDir, { recursive: true, force: true }),
        };
      },
      bus: (database, name) => Promise.resolve(createEmbeddedBus({ database, name })),
    },
    {
      label: 'NATS JetStream + PostgreSQL',
      gate: await serviceGate(['nats', 'postgres']),
      shared: true,
      openStore: async () => {
        const created = await createTestPostgresDatabase();
        return { open: () => openDatabase({ url: created.url }), dispose: created.drop };
      },
      bus: (_database, name) =>
        connectJetStreamBus({
          url: testEnvironment.TEST_NATS_URL,
          name,
          namespace,
          logger: silentLogger,
        }),
    },
  ];
}

/** Deletes the JetStream streams a test file made under its namespace. */
export async function dropNamespace(namespace: string): Promise<void> {
  const nc = await connect({ servers: testEnvironment.TEST_NATS_URL });
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names()) {
    if (name.includes(namespace)) await jsm.streams.delete(name);
  }
  await nc.close();
}

/** A client of the broker on its own bus connection where the target allows it. */
export interface BrokerClient {
  readonly client: SandboxBrokerClient;
  close(): Promise<void>;
}

/**
 * A broker as a service host plus one client, over one target; `restart` stops everything and
 * starts it again on the same store (a crash that loses nothing on disk or in the database).
 */
export class BrokerUnderTest {
  host!: ServiceHost;
  client!: SandboxBrokerClient;
  private database!: Database;
  private brokerBus!: Bus;
  private clients: BrokerClient[] = [];

  private constructor(
    private readonly target: BusTarget,
    private readonly store: BrokerStore,
    private readonly config: () => SandboxBrokerConfig,
  ) {}

  static async start(
    target: BusTarget,
    config: () => SandboxBrokerConfig,
  ): Promise<BrokerUnderTest> {
    const broker = new BrokerUnderTest(target, await target.openStore(), config);
    await broker.startAll();
    return broker;
  }

  /** The broker's service, to look at what it holds. */
  get service(): SandboxBrokerService {
    return this.host.app.get(SandboxBrokerService);
  }

  /**
   * Another client (its own connection on JetStream; the broker's bus when embedded); `wrap`
   * stands between it and the bus (to lose answers, say).
   */
  async newClient(
    wrap: (bus: SandboxRequester) => SandboxRequester = (bus) => bus,
  ): Promise<BrokerClient> {
    const bus = this.target.shared
      ? await this.target.bus(this.database, 'runner')
      : this.brokerBus;
    const client = await SandboxBrokerClient.open(wrap(bus));
    const handle: BrokerClient = {
      client,
      close: async () => {
        this.clients = this.clients.filter((c) => c !== handle);
        await client.close();
        if (this.target.shared) await bus.close();
      },
    };
    this.clients.push(handle);
    return handle;
  }

  async restart(): Promise<void> {
    await this.stopAll();
    await this.startAll();
  }

  async stop(): Promise<void> {
    await this.stopAll();
    await this.store.dispose();
  }

  private async startAll(): Promise<void> {
    this.database = await this.store.open();
    this.brokerBus = await this.target.bus(this.database, 'broker');
    const runtime = composeRuntime({
      name: 'broker',
      mode: 'embedded',
      bus: this.brokerBus,
      database: this.database,
    });
    this.host = await startServiceHost({
      runtime,
      modules: [SandboxBrokerModule.register(this.config())],
      port: 0,
      logLevels: ['fatal'],
    });
    this.client = (await this.newClient()).client;
  }

  private async stopAll(): Promise<void> {
    for (const client of [...this.clients]) await client.close();
    await this.host?.close();
    await this.brokerBus?.close();
    await this.database?.close();
  }
}

/** Polls `condition` until it holds (or fails after `timeoutMs`, naming `what`). */
export async function waitUntil(
  what: string,
  condition: () => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
