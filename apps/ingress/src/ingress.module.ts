import { Module } from '@nestjs/common';

/**
 * HTTP webhooks: verify on raw bytes, dedupe, derive the thread id, publish `trigger.received`.
 * The routes land with the triggers issue; the module already boots in both modes.
 */
@Module({})
export class IngressModule {}
