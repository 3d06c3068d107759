/** The routes the descriptor announces, relative to the app's base URL. */
export const CONNECT_ROUTES = {
  descriptor: '/connect/atlassian-connect.json',
  installed: '/connect/installed',
  uninstalled: '/connect/uninstalled',
  commentCreated: '/connect/webhooks/comment-created',
} as const;

/**
 * The private Connect app's descriptor: JWT authentication, RS256-signed lifecycle callbacks
 * (`signed-install`), context-qsh for front-end tokens, read access, and one webhook.
 */
export function connectDescriptor(appKey: string, baseUrl: string): Record<string, unknown> {
  return {
    key: appKey,
    name: 'Caravel',
    description: 'Background coding agents, asked from Confluence comments',
    vendor: { name: 'Caravel', url: baseUrl },
    baseUrl,
    authentication: { type: 'jwt' },
    lifecycle: { installed: CONNECT_ROUTES.installed, uninstalled: CONNECT_ROUTES.uninstalled },
    apiMigrations: { 'signed-install': true, 'context-qsh': true, gdpr: true },
    scopes: ['READ'],
    modules: {
      webhooks: [{ event: 'comment_created', url: CONNECT_ROUTES.commentCreated }],
    },
  };
}
