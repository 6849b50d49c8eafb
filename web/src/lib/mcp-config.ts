// Ready-to-paste MCP client configurations for this service. Keys are placeholders: the console
// never writes a real key into text meant for copying around.

export const KEY_PLACEHOLDER = '<API_KEY>';

export interface ClientConfig {
  readonly id: string;
  readonly title: string;
  readonly where: string;
  readonly language: 'json' | 'shell';
  readonly text: string;
}

export function mcpEndpoints(origin: string): { http: string; ws: string; tools: string } {
  const base = origin.replace(/\/+$/, '');
  return {
    http: `${base}/v1/expose/mcp`,
    ws: `${base.replace(/^http/, 'ws')}/v1/expose/mcp/ws`,
    tools: `${base}/v1/expose/mcp/tools`,
  };
}

/** What a remote MCP client (Claude, ChatGPT custom connectors) is given: the MCP URL; OAuth is discovered from it. */
export function oauthUrls(origin: string): { connector: string; metadata: string; protectedResource: string } {
  const base = origin.replace(/\/+$/, '');
  return {
    connector: `${base}/v1/expose/mcp`,
    metadata: `${base}/.well-known/oauth-authorization-server`,
    protectedResource: `${base}/.well-known/oauth-protected-resource/v1/expose/mcp`,
  };
}

function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}

/** Configurations for common MCP hosts, for the hosted endpoint and the self-hosted server. */
export function clientConfigs(origin: string): ClientConfig[] {
  const { http } = mcpEndpoints(origin);
  const auth = { Authorization: `Bearer ${KEY_PLACEHOLDER}` };
  return [
    {
      id: 'claude-desktop',
      title: 'Claude Desktop (stdio)',
      where: 'claude_desktop_config.json',
      language: 'json',
      text: json({
        mcpServers: {
          atrium: { command: '/path/to/atrium/bin/atrium', args: ['mcp', '--stdio', '--url', origin], env: { ATRIUM_API_KEY: KEY_PLACEHOLDER } },
        },
      }),
    },
    {
      id: 'cursor',
      title: 'Cursor (Streamable HTTP)',
      where: '~/.cursor/mcp.json',
      language: 'json',
      text: json({ mcpServers: { atrium: { url: http, headers: auth } } }),
    },
    {
      id: 'vscode',
      title: 'VS Code (Streamable HTTP)',
      where: '.vscode/mcp.json',
      language: 'json',
      text: json({
        inputs: [{ type: 'promptString', id: 'atrium-key', description: 'Atrium API key', password: true }],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own input-variable syntax, not a template
        servers: { atrium: { type: 'http', url: http, headers: { Authorization: 'Bearer ${input:atrium-key}' } } },
      }),
    },
    {
      id: 'self-hosted',
      title: 'Self-hosted MCP server',
      where: 'atrium-mcp.json, then: atrium mcp-server --config atrium-mcp.json; clients use http://127.0.0.1:3333/mcp',
      language: 'json',
      text: json({
        port: 3333,
        service_api_key: KEY_PLACEHOLDER,
        service_base_url: origin,
        allowed_origins: [origin],
        rate_limit: { requests_per_minute: 60 },
      }),
    },
    {
      id: 'curl',
      title: 'Any HTTP client (REST wrapper)',
      where: 'shell',
      language: 'shell',
      text: `curl -s -H 'Authorization: Bearer ${KEY_PLACEHOLDER}' -H 'content-type: application/json' \\\n  -d '{"tool":"query_knowledge","parameters":{"query":"onboarding checklist","limit":5}}' \\\n  ${http}/invoke`,
    },
  ];
}
