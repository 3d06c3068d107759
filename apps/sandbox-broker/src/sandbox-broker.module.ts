import { Module } from '@nestjs/common';
import { SandboxPingHandler } from './handlers/sandbox-ping.handler.js';
import { SandboxRegistryService } from './services/sandbox-registry.service.js';

/** Sandbox lifecycle and RPC per thread. */
@Module({
  controllers: [SandboxPingHandler],
  providers: [SandboxRegistryService],
})
export class SandboxBrokerModule {}
