import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { InstructionsService, type InstructionsView } from '../services/instructions.service.js';

/** People's standing instructions to the agent (docs/dashboard.md#settings). */
@Controller()
export class InstructionsController {
  constructor(@Inject(InstructionsService) private readonly instructions: InstructionsService) {}

  @ApiRoute(ROUTES.listInstructions)
  list(): Promise<InstructionsView[]> {
    return this.instructions.list();
  }

  @ApiRoute(ROUTES.instructions)
  get(@Param() params: unknown, @CurrentCaller() caller: Caller | null): Promise<InstructionsView> {
    const { identity } = parseInput(ROUTES.instructions.params, params, 'identity');
    return this.instructions.get(caller, identity);
  }

  @ApiRoute(ROUTES.saveInstructions)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<InstructionsView> {
    const { identity } = parseInput(ROUTES.saveInstructions.params, params, 'identity');
    const { instructions } = parseInput(ROUTES.saveInstructions.body, body, 'instructions');
    return this.instructions.save(caller, identity, instructions);
  }

  @ApiRoute(ROUTES.removeInstructions)
  async remove(@Param() params: unknown, @CurrentCaller() caller: Caller): Promise<void> {
    const { identity } = parseInput(ROUTES.removeInstructions.params, params, 'identity');
    await this.instructions.remove(caller, identity);
  }
}
