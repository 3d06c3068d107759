import type { Envelope, MessageDefinition } from '@caravel/contracts';
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import type { Bus } from '../bus.port.js';

/**
 * Nest `ClientProxy` over the Caravel bus: `emit(pattern, envelope)` publishes a catalogue
 * message durably; `send(subject, payload)` is request/reply.
 */
export class CaravelClient extends ClientProxy {
  private readonly definitions: Map<string, MessageDefinition>;

  constructor(
    private readonly bus: Bus,
    definitions: readonly MessageDefinition[],
    private readonly requestTimeoutMs = 10_000,
  ) {
    super();
    this.definitions = new Map(definitions.map((d) => [d.pattern, d]));
  }

  async connect(): Promise<void> {
    await this.bus.ping();
  }

  close(): void {
    // The bus is owned by the platform module, which closes it on shutdown.
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket<Envelope>): Promise<T> {
    const pattern = String(packet.pattern);
    const definition = this.definitions.get(pattern);
    if (!definition) throw new Error(`emit('${pattern}') names no message in the catalogue`);
    const envelope = definition.parse(packet.data);
    return (await this.bus.publish(definition, envelope)) as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    this.bus
      .request(String(packet.pattern), packet.data, { timeoutMs: this.requestTimeoutMs })
      .then(
        (response) => callback({ response, isDisposed: true }),
        (err: unknown) => callback({ err, isDisposed: true }),
      );
    return () => undefined;
  }
}
