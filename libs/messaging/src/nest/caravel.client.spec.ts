import { StartRunV1, type Envelope, type MessageDefinition } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { strictMock, type Stubs } from '@caravel/testing/doubles';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import type { Bus, PublishAck } from '../bus.port.js';
import { CaravelClient } from './caravel.client.js';

/** Only the calls the client may make; anything else throws. */
function busDouble(overrides: Stubs<Bus>): Bus {
  // ClientProxy connects (pings) before its first emit or send.
  return strictMock<Bus>({ ping: () => Promise.resolve(), ...overrides }, 'bus');
}

describe('CaravelClient', () => {
  it('emits a catalogue message as a durable publish of the parsed envelope', async () => {
    const published: [MessageDefinition, Envelope][] = [];
    const bus = busDouble({
      publish: (definition, envelope) => {
        published.push([definition, envelope]);
        return Promise.resolve<PublishAck>({
          stream: 'CARAVEL_COMMANDS',
          sequence: 9,
          duplicate: false,
        });
      },
    });
    const client = new CaravelClient(bus, [StartRunV1]);
    const envelope = StartRunV1.fixture();
    const ack = await lastValueFrom(client.emit(StartRunV1.pattern, envelope));
    expect(ack).toEqual({ stream: 'CARAVEL_COMMANDS', sequence: 9, duplicate: false });
    expect(published).toEqual([[StartRunV1, envelope]]);
  });

  it('refuses to emit a malformed envelope or an unknown pattern', async () => {
    const client = new CaravelClient(busDouble({}), [StartRunV1]);
    await expect(
      lastValueFrom(client.emit(StartRunV1.pattern, { nope: true })),
    ).rejects.toMatchObject({
      code: 'MESSAGE_MALFORMED',
    });
    await expect(lastValueFrom(client.emit('cmd.unknown.v1', {}))).rejects.toThrow(
      /names no message/,
    );
  });

  it('sends requests through request/reply and surfaces the coded error', async () => {
    const bus = busDouble({
      request: <T>(subject: string, payload: unknown) =>
        subject === 'sandbox.t.ping'
          ? Promise.resolve({ echoed: payload } as T)
          : Promise.reject(new AppError('TIMEOUT', `no answer on ${subject}`)),
    });
    const client = new CaravelClient(bus, []);
    expect(await firstValueFrom(client.send('sandbox.t.ping', { a: 1 }))).toEqual({
      echoed: { a: 1 },
    });
    await expect(firstValueFrom(client.send('sandbox.t.exec', {}))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
  });
});
