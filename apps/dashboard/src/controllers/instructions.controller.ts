import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Put,
  UseGuards,
} from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ActionGuard, AdminGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { InstructionsService, type InstructionsView } from '../services/instructions.service.js';

/** People's standing instructions to the agent (docs/dashboard.md#settings). */
@Controller('api/instructions')
export class InstructionsController {
  constructor(@Inject(InstructionsService) private readonly instructions: InstructionsService) {}

  @Get()
  @UseGuards(AdminGuard)
  list(): Promise<InstructionsView[]> {
    return this.instructions.list();
  }

  @Get(':identity')
  @UseGuards(ReadGuard)
  get(@Param() params: unknown, @CurrentCaller() caller: Caller | null): Promise<InstructionsView> {
    const { identity } = parseInput(ROUTES.instructions.params, params, 'identity');
    return this.instructions.get(caller, identity);
  }

  @Put(':identity')
  @UseGuards(ActionGuard)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<InstructionsView> {
    const { identity } = parseInput(ROUTES.saveInstructions.params, params, 'identity');
    const { instructions } = parseInput(ROUTES.saveInstructions.body, body, 'instructions');
    return this.instructions.save(caller, identity, instructions);
  }

  @Delete(':identity')
  @UseGuards(ActionGuard)
  @HttpCode(204)
  async remove(@Param() params: unknown, @CurrentCaller() caller: Caller): Promise<void> {
    const { identity } = parseInput(ROUTES.removeInstructions.params, params, 'identity');
    await this.instructions.remove(caller, identity);
  }
}
