import { z } from 'zod';
import type { ActionDefinition } from '../contract.ts';
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
  const res = await fetch(`${llm.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}`, 'api-key': llm.apiKey } : {}) },
    body: JSON.stringify({
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
    }),
    signal: input.signal ?? AbortSignal.timeout(60_000),
  });
  if (!res.ok) throw new Error(`the LLM endpoint answered HTTP ${res.status}`);
  const parsed = completion.parse(await res.json());
  const message = parsed.choices[0]?.message;
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
