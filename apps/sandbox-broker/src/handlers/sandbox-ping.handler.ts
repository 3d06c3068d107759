import { SandboxPing } from '@caravel/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  SandboxRegistryService,
  type SandboxHealth,
} from '../services/sandbox-registry.service.js';

/** Request/reply: is this thread's sandbox alive? */
@Controller()
export class SandboxPingHandler {
  constructor(@Inject(SandboxRegistryService) private readonly registry: SandboxRegistryService) {}

  @MessagePattern<string>(SandboxPing.pattern)
  async handle(@Payload() raw: unknown): Promise<SandboxHealth> {
    const request = SandboxPing.parseRequest(raw);
    return this.registry.health(request.threadId);
  }
}
