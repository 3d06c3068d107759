import { AgentChat } from '@caravel/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ChatAgentService } from '../services/chat-agent.service.js';

/** Request/reply `agent.<threadId>.chat`: the read-only chat agent answers a question. */
@Controller()
export class AgentChatHandler {
  constructor(@Inject(ChatAgentService) private readonly chat: ChatAgentService) {}

  @MessagePattern<string>(AgentChat.pattern)
  handle(@Payload() raw: unknown) {
    return this.chat.answer(AgentChat.parseRequest(raw));
  }
}
