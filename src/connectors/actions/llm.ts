import { z } from 'zod';
import { AppError, Errors, fetchFailure, openAiErrorMessage } from '../../platform/errors.ts';
import { maskSecrets } from '../../platform/secrets.ts';
import type { ActionDefinition } from '../kit/contract.ts';
import type { PlannedCall } from './rules.ts';

export interface LlmConfig {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly model: string;
}

const completion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          tool_calls: z.array(z.object({ type: z.string().optional(), function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
        }),
      }),
    )
    .min(1),
});

export type LlmPlan = { ok: true; calls: PlannedCall[] } | { ok: false; reason: string };

const LLM_TIMEOUT_MS = 60_000;

/** What to check for an LLM's HTTP error status, in the message of the 502. */
function hint(status: number): string {
  if (status === 401 || status === 403) return 'check ATRIUM_LLM_API_KEY';
  if (status === 404) return 'check ATRIUM_LLM_BASE_URL (…/v1) and ATRIUM_LLM_MODEL';
  if (status === 429 || status >= 500) return 'retry later';
  return 'check ATRIUM_LLM_MODEL and the endpoint';
}

/**
 * Asks an OpenAI-compatible chat-completions endpoint (OpenAI, Azure OpenAI, Ollama, vLLM) to turn the
 * intent into calls of the connector's declared actions, offered as tools. Nothing runs here.
 */
export async function planWithLlm<C, S>(
  llm: LlmConfig,
  input: { connectorType: string; actions: readonly ActionDefinition<C, S>[]; intent: string; context: Record<string, unknown>; signal?: AbortSignal },
): Promise<LlmPlan> {
  const tools = input.actions.map((a) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(a.parameters) as Record<string, unknown>;
    return { type: 'function', function: { name: a.name, description: a.description, parameters } };
  });
  // The LLM is an upstream: its failures are 502 `upstream_error` (504 `timeout`), never a 500, and never carry its key.
  const fail = (message: string, details: Record<string, unknown> = {}) =>
    new AppError('upstream_error', 502, `the LLM endpoint (ATRIUM_LLM_BASE_URL) ${llm.apiKey ? maskSecrets(message, [llm.apiKey]) : message}`, {
      details: { upstream: 'llm', ...details },
    });
  const request = {
    model: llm.model,
    temperature: 0,
    tool_choice: 'auto',
    tools,
    messages: [
      {
        role: 'system',
        content: `You operate a ${input.connectorType} connector. Turn the user's intent into calls of the given tools. Use only facts from the intent and context; if the intent cannot be done with these tools, answer in text without calling a tool.`,
      },
      { role: 'user', content: JSON.stringify({ intent: input.intent, context: input.context }) },
    ],
  };
  const signal = input.signal ?? AbortSignal.timeout(LLM_TIMEOUT_MS);
  let body: unknown;
  try {
    const res = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}`, 'api-key': llm.apiKey } : {}) },
      body: JSON.stringify(request),
      signal,
    });
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      throw fail(`answered HTTP ${res.status}: ${openAiErrorMessage(text)}; ${hint(res.status)}`, { status: res.status });
    }
    body = await res.json().catch((err: unknown) => (signal.aborted ? Promise.reject(err) : undefined));
  } catch (err) {
    if (err instanceof AppError || input.signal?.aborted) throw err;
    // The timeout covers the whole exchange (a server that sends headers and then stalls too).
    if (signal.aborted) throw Errors.timeout(`the LLM endpoint (ATRIUM_LLM_BASE_URL) did not answer within ${LLM_TIMEOUT_MS / 1000} s`);
    throw fail(`could not be reached: ${fetchFailure(err)}`);
  }
  const parsed = completion.safeParse(body);
  if (!parsed.success) throw fail('answered with a body that is not a chat completion: is it OpenAI-compatible?');
  const message = parsed.data.choices[0]?.message;
  const calls: PlannedCall[] = [];
  for (const c of message?.tool_calls ?? []) {
    let parameters: unknown;
    try {
      parameters = JSON.parse(c.function.arguments);
    } catch {
      return { ok: false, reason: `the LLM produced invalid JSON arguments for ${c.function.name}` };
    }
    calls.push({ action: c.function.name, parameters: (parameters ?? {}) as Record<string, unknown> });
  }
  if (calls.length === 0) return { ok: false, reason: message?.content ? `the LLM did not plan an action: ${message.content}` : 'the LLM did not plan an action' };
  return { ok: true, calls };
}
