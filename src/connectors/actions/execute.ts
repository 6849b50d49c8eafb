import type { Principal } from '../../access/index.ts';
import { recordAudit } from '../../audit/index.ts';
import { Errors, unstorableText } from '../../platform/errors.ts';
import { Ops } from '../../platform/operations.ts';
import { buildSourceContext, credentialMasker, findVendorError, shareRateLimit } from '../kit/context.ts';
import { VendorAuthError, VendorRateLimitedError } from '../kit/errors.ts';
import { getKind } from '../catalog.ts';
import type { ConnectorDeps } from '../deps.ts';
import { getConnector } from '../store.ts';
import { planWithLlm } from './llm.ts';
import { type PlannedCall, planWithRules } from './rules.ts';

export interface ExecuteRequest {
  readonly intent: string;
  readonly context?: Record<string, unknown>;
  readonly dry_run?: boolean;
}

export interface ExecutedCall {
  readonly action: string;
  readonly parameters: Record<string, unknown>;
  readonly status: 'planned' | 'succeeded' | 'failed';
  readonly result?: Record<string, unknown>;
  readonly error?: string;
}

export interface ExecuteResponse {
  readonly connector_id: string;
  readonly intent: string;
  readonly planner: 'llm' | 'rules';
  readonly dry_run: boolean;
  readonly calls: ExecutedCall[];
}

const RUNNABLE = new Set(['connected', 'idle', 'syncing', 'rate_limited']);

/**
 * Turns a natural-language intent into calls of the connector's declared actions (an LLM when configured,
 * else the documented rules), validates every call's parameters, and runs them unless `dry_run`.
 * 422 when nothing can be planned or parameters are missing; each executed call is audited.
 */
export async function executeAction(deps: ConnectorDeps, principal: Principal, connectorId: string, request: ExecuteRequest): Promise<ExecuteResponse> {
  // Refused before anything acts: text the audit row cannot hold would otherwise reach the vendor first.
  const unstorable = unstorableText({ intent: request.intent, context: request.context ?? {} }, 'body');
  if (unstorable) throw Errors.validation(`invalid ${unstorable.path}: ${unstorable.message}`, [unstorable]);
  const c = await getConnector(deps.db, principal.tenantId, connectorId);
  if (!c) throw Errors.notFound('connector', connectorId);
  const kind = getKind(c.type);
  const actions = kind?.actions ?? [];
  if (!kind || actions.length === 0) throw Errors.unprocessable('no_actions', `'${c.type}' connectors declare no actions`);
  if (!RUNNABLE.has(c.status)) throw Errors.conflict(`the connector is ${c.status}: actions need a connected connector`, { status: c.status });
  const context = request.context ?? {};
  const llm = deps.config.connectors.llm;
  const plan = llm ? await planWithLlm(llm, { connectorType: c.type, actions, intent: request.intent, context }) : planWithRules(actions, request.intent, context);
  if (!plan.ok) throw Errors.unprocessable('intent_not_understood', plan.reason);

  const validated: { call: PlannedCall; run: (typeof actions)[number] }[] = [];
  for (const call of plan.calls) {
    const action = actions.find((a) => a.name === call.action);
    if (!action) throw Errors.unprocessable('unknown_action', `the plan calls '${call.action}', which ${c.type} connectors do not declare`);
    const params = action.parameters.safeParse(call.parameters);
    if (!params.success) {
      const problems = params.error.issues.map((i) => ({ path: [call.action, ...i.path.map(String)].join('.'), message: i.message }));
      throw Errors.unprocessable('invalid_action_parameters', `cannot run ${call.action}: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')} (pass it in context)`, { problems });
    }
    validated.push({ call: { action: call.action, parameters: params.data as Record<string, unknown> }, run: action });
  }
  const planner = llm ? 'llm' : 'rules';
  if (request.dry_run) {
    return { connector_id: c.id, intent: request.intent, planner, dry_run: true, calls: validated.map((v) => ({ ...v.call, status: 'planned' as const })) };
  }
  const source = await buildSourceContext(deps, c, kind, { signal: AbortSignal.timeout(60_000), log: deps.log.child({ connectorId: c.id }) });
  const calls: ExecutedCall[] = [];
  for (const v of validated) {
    let out: ExecutedCall;
    try {
      out = { ...v.call, status: 'succeeded', result: await v.run.run(source, v.call.parameters) };
    } catch (err) {
      // A vendor 429 here blocks the connector in every process (syncs and webhooks wait it out too).
      await shareRateLimit(deps.db, c, err);
      const vendor = findVendorError(err);
      // Returned and audited: a vendor that echoes the token must not put it there.
      const mask = await credentialMasker(deps, c);
      const message = mask(
        vendor instanceof VendorAuthError
          ? `the vendor rejected the credentials: ${vendor.message}`
          : vendor instanceof VendorRateLimitedError
            ? 'the vendor is rate limiting this connector; retry later'
            : err instanceof Error
              ? err.message
              : String(err),
      );
      out = { ...v.call, status: 'failed', error: message };
    }
    calls.push(out);
    await recordAudit(deps.db, {
      tenantId: principal.tenantId,
      action: Ops.connectorActionExecuted,
      actorId: principal.id,
      userId: principal.userId,
      details: { connector_id: c.id, action: out.action, status: out.status, intent: request.intent, planner, ...(out.error ? { error: out.error } : {}) },
    });
    if (out.status === 'failed') break;
  }
  return { connector_id: c.id, intent: request.intent, planner, dry_run: false, calls };
}
