/** What a webhook route answers: a status and a JSON body. */
export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

export const answers = {
  accepted: (threadId: string): WebhookAnswer => ({
    status: 200,
    body: { accepted: true, threadId },
  }),
  recorded: (threadId: string): WebhookAnswer => ({
    status: 202,
    body: { accepted: false, reason: 'recorded', threadId },
  }),
  ignored: (reason: string): WebhookAnswer => ({ status: 200, body: { accepted: false, reason } }),
  duplicate: (): WebhookAnswer => ({ status: 200, body: { accepted: false, reason: 'duplicate' } }),
};
