import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible chat-completions server (POST /v1/chat/completions with `tools`): the port the
 * actions planner talks to. It answers with the tool calls the test scripts, in OpenAI's response shape.
 */
export interface FakeLlm {
  readonly baseUrl: string;
  readonly requests: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[];
  /** What the next completion returns: tool calls, plain text (no tool call), or an HTTP error with this body. */
  next: { toolCalls: { name: string; arguments: Record<string, unknown> }[] } | { text: string } | { status: number; body: unknown };
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: FakeLlm['requests'] = [];
  const state: { next: FakeLlm['next'] } = { next: { text: 'nothing to do' } };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      requests.push({ headers: req.headers, body: JSON.parse(raw) as Record<string, unknown> });
      const n = state.next;
      if ('status' in n) {
        res.writeHead(n.status, { 'content-type': typeof n.body === 'string' ? 'text/plain' : 'application/json' });
        res.end(typeof n.body === 'string' ? n.body : JSON.stringify(n.body));
        return;
      }
      const message =
        'toolCalls' in n
          ? {
              role: 'assistant',
              content: null,
              tool_calls: n.toolCalls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
            }
          : { role: 'assistant', content: n.text };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'fake-model',
          choices: [{ index: 0, message, finish_reason: 'toolCalls' in n ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    get next() {
      return state.next;
    },
    set next(v) {
      state.next = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
