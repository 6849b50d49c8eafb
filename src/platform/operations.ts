/**
 * Operation names shared by routes, MCP tools, permission checks and audit events.
 * Audit `action` values are these strings.
 */
export const Ops = {
  apiKeyCreated: 'apikey.created',
  apiKeyRevoked: 'apikey.revoked',
  auditRead: 'audit.read',
} as const;
export type Op = (typeof Ops)[keyof typeof Ops];
