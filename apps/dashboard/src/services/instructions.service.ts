import { UserInstructionsRepository } from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../auth/session.types.js';
import { mayTouchOwn } from './profiles.service.js';

/** A person's standing instructions as the API shows them (empty when they keep none). */
export interface InstructionsView {
  identity: string;
  instructions: string;
  updatedAt: Date | null;
}

/**
 * People's standing instructions to the agent (`user_instructions`, what the agent's
 * `save_user_instructions` keeps): attached to the person's requests, below repository
 * instructions and AGENTS.md. A signed-in person reads and changes only their own; admins and
 * the machine token anyone's. Everyone's at once is an admin route.
 */
@Injectable()
export class InstructionsService {
  constructor(
    @Inject(UserInstructionsRepository) private readonly store: UserInstructionsRepository,
  ) {}

  async list(): Promise<InstructionsView[]> {
    return (await this.store.list()).map((row) => ({
      identity: row.subject,
      instructions: row.instructions,
      updatedAt: row.updatedAt,
    }));
  }

  async get(caller: Caller | null, identity: string): Promise<InstructionsView> {
    this.mayTouch(caller, identity, 'read');
    const saved = await this.store.find(identity);
    return {
      identity,
      instructions: saved?.instructions ?? '',
      updatedAt: saved?.updatedAt ?? null,
    };
  }

  async save(caller: Caller, identity: string, instructions: string): Promise<InstructionsView> {
    this.mayTouch(caller, identity, 'change');
    const saved = await this.store.save(identity, instructions);
    return { identity, instructions: saved.instructions, updatedAt: saved.updatedAt };
  }

  async remove(caller: Caller, identity: string): Promise<void> {
    this.mayTouch(caller, identity, 'change');
    await this.store.remove(identity);
  }

  private mayTouch(caller: Caller | null, identity: string, what: 'read' | 'change'): void {
    mayTouchOwn(caller, identity, `${what} their own instructions`);
  }
}
