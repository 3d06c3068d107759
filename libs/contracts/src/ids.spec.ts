import { runIdForTrigger, URL_NAMESPACE, uuidV5 } from './ids.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('matches the RFC 9562 test vector for www.example.com in the DNS namespace', () => {
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('matches the widely published python.org vector in the DNS namespace', () => {
    expect(uuidV5('python.org', DNS_NAMESPACE)).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('sets version 5 and the RFC variant', () => {
    const id = uuidV5('anything', URL_NAMESPACE);
    expect(id[14]).toBe('5');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('rejects a namespace that is not a UUID', () => {
    expect(() => uuidV5('x', 'nope')).toThrow(/namespace/);
  });

  it('derives one run per trigger', () => {
    const trigger = '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
    expect(runIdForTrigger(trigger)).toBe(runIdForTrigger(trigger));
    expect(runIdForTrigger(trigger)).not.toBe(
      runIdForTrigger('9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5e'),
    );
  });
});
