import { Injectable } from '@nestjs/common';

export interface SandboxHealth {
  threadId: string;
  provider: string;
  alive: boolean;
}

/**
 * Knows which sandbox each thread has. Until the sandbox-broker issue lands there are no
 * providers, so every thread reports `provider: none`.
 */
@Injectable()
export class SandboxRegistryService {
  health(threadId: string): Promise<SandboxHealth> {
    return Promise.resolve({ threadId, provider: 'none', alive: false });
  }
}
