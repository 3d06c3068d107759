import { AgentChat, type RequestOf } from '@caravel/contracts';
import { CaravelContext, ServeRequest } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ChatAgentService } from '../services/chat-agent.service.js';

/** Request/reply `agent.<threadId>.chat`: the read-only chat agent answers a question. */
@Controller()
export class AgentChatHandler {
  constructor(@Inject(ChatAgentService) private readonly chat: ChatAgentService) {}

  @ServeRequest(AgentChat)
  handle(@Payload() request: RequestOf<typeof AgentChat>, @Ctx() context: CaravelContext) {
    return this.chat.answer(request, context.stopping);
  }
}
