import {
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  RunSubagentV1,
  RunTodosV1,
  type EnvelopeOf,
} from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunEventIndexService } from '../services/run-event-index.service.js';

/** Every run event, indexed in order per thread (todo lists and subagents too: the thread view and the `.traj` read them). */
@Controller()
export class RunEventsHandler {
  constructor(@Inject(RunEventIndexService) private readonly index: RunEventIndexService) {}

  @ConsumeEvent(RunStartedV1, { service: 'dashboard', ordered: true })
  async started(
    @Payload() envelope: EnvelopeOf<typeof RunStartedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(RunStepV1, { service: 'dashboard', ordered: true })
  async step(
    @Payload() envelope: EnvelopeOf<typeof RunStepV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(RunOutputV1, { service: 'dashboard', ordered: true })
  async output(
    @Payload() envelope: EnvelopeOf<typeof RunOutputV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(RunFinishedV1, { service: 'dashboard', ordered: true })
  async finished(
    @Payload() envelope: EnvelopeOf<typeof RunFinishedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(RunAttemptsSelectedV1, { service: 'dashboard', ordered: true })
  async attemptsSelected(
    @Payload() envelope: EnvelopeOf<typeof RunAttemptsSelectedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(RunTodosV1, { service: 'dashboard', ordered: true })
  async todos(
    @Payload() envelope: EnvelopeOf<typeof RunTodosV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(RunSubagentV1, { service: 'dashboard', ordered: true })
  async subagent(
    @Payload() envelope: EnvelopeOf<typeof RunSubagentV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }
}
