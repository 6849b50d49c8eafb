import type { z } from 'zod';
import type { ActionDefinition } from '../kit/contract.ts';

/**
 * The rule-based planner used when no LLM is configured. Documented rules (docs/connectors.md):
 * an action is chosen when the intent contains one of its trigger words (`create_issue`: create/open/file
 * + issue; `comment_on_issue`: comment/reply;
 * `post_message`: post/send/say/announce/message; `append_to_page`: append/add … to … page; `create_page`: create/new/write + page); each parameter comes from `context[name]` first, else from
 * the intent text: `repository` = the first owner/name token, `issue_number` = `#123`, text parameters
 * `channel` = `#name`, `team` = `team KEY`, (`title`, `body`, `text`) = the first "quoted" text, else the text after the first colon; the free text
 * fills only the first text parameter the context leaves empty.
 */
export interface PlannedCall {
  readonly action: string;
  readonly parameters: Record<string, unknown>;
}

const TRIGGERS: Record<string, RegExp> = {
  create_issue: /\b(create|open|file|new|raise)\b.*\b(issue|bug|ticket)\b/i,
  comment_on_issue: /\b(comment|reply|respond)\b/i,
  post_message: /\b(post|send|say|announce|message)\b/i,
  append_to_page: /\b(append|add)\b.*\bto\b.*\bpage\b/i,
  create_page: /\b(create|new|write)\b.*\bpage\b/i,
};

function extract(name: string, intent: string): unknown {
  if (name === 'team') return /\bteam\s+([A-Z][A-Z0-9]{1,9})\b/.exec(intent)?.[1];
  if (name === 'channel') return /(?:^|\s)#([\w-]+)/.exec(intent)?.[1];
  if (name === 'repository') return /\b([\w.-]+\/[\w.-]+)\b/.exec(intent)?.[1];
  if (name === 'issue_number') {
    const m = /#(\d+)/.exec(intent);
    return m?.[1] ? Number(m[1]) : undefined;
  }
  const quoted = /["“]([^"”]+)["”]/.exec(intent)?.[1];
  if (quoted) return quoted;
  const colon = intent.indexOf(':');
  return colon >= 0 ? intent.slice(colon + 1).trim() || undefined : undefined;
}

export type RulePlan = { ok: true; calls: PlannedCall[] } | { ok: false; reason: string };

export function planWithRules<C, S>(actions: readonly ActionDefinition<C, S>[], intent: string, context: Record<string, unknown>): RulePlan {
  const action = actions.find((a) => TRIGGERS[a.name]?.test(intent));
  if (!action) {
    return { ok: false, reason: `no rule matches the intent; the rule-based planner understands: ${actions.map((a) => a.name).join(', ')} (configure ATRIUM_LLM_BASE_URL for free-form intents)` };
  }
  const shape = action.parameters.shape as Record<string, z.ZodType>;
  const parameters: Record<string, unknown> = {};
  let freeTextUsed = false;
  for (const name of Object.keys(shape)) {
    const structured = name === 'repository' || name === 'issue_number' || name === 'channel' || name === 'team';
    // The intent's free text fills one text parameter only (the first: a title, or a comment body).
    const fromIntent = structured || !freeTextUsed ? extract(name, intent) : undefined;
    const v = context[name] ?? fromIntent;
    if (!structured && context[name] === undefined && fromIntent !== undefined) freeTextUsed = true;
    if (v !== undefined) parameters[name] = v;
  }
  return { ok: true, calls: [{ action: action.name, parameters }] };
}
