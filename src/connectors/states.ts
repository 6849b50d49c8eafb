/**
 * The connector state machine: the eight states of the spec and every allowed transition, in one table.
 * `applyTransition` (store.ts) is the only writer of `connectors.status`, and it updates with
 * `WHERE status = ANY(<allowed from>)`, so an invalid transition cannot happen even under races.
 * docs/connectors.md renders this table.
 */
export const CONNECTOR_STATES = [
  'disconnected',
  'connecting',
  'connected',
  'syncing',
  'idle',
  'error',
  'rate_limited',
  'paused',
] as const;
export type ConnectorState = (typeof CONNECTOR_STATES)[number];

export const CONNECTOR_EVENTS = [
  'credentials_valid',
  'credentials_invalid',
  'settings_invalid',
  'oauth_completed',
  'sync_started',
  'vendor_rate_limited',
  'rate_limit_cleared',
  'sync_completed',
  'sync_failed',
  'auth_revoked',
  'reconnect',
  'pause',
  'resume',
] as const;
export type ConnectorEvent = (typeof CONNECTOR_EVENTS)[number];

interface Rule {
  readonly from: readonly ConnectorState[];
  /** The next state; `resume` computes it from where the pause interrupted. */
  readonly to: ConnectorState | 'previous';
  readonly trigger: string;
}

const ACTIVE: readonly ConnectorState[] = ['connecting', 'connected', 'syncing', 'idle', 'error', 'rate_limited'];

export const TRANSITIONS: Readonly<Record<ConnectorEvent, Rule>> = {
  credentials_valid: { from: ['connecting'], to: 'connected', trigger: 'credentials checked against the vendor (or none needed: `api` kind)' },
  credentials_invalid: { from: ['connecting', 'connected', 'idle', 'syncing', 'rate_limited'], to: 'error', trigger: 'the vendor rejected the credentials' },
  settings_invalid: {
    from: ['connecting', 'connected', 'idle', 'syncing', 'rate_limited'],
    to: 'error',
    trigger: "the connector's settings cannot work (e.g. a folder outside `ATRIUM_FILESYSTEM_ROOTS`)",
  },
  oauth_completed: { from: ['connecting', 'disconnected', 'error'], to: 'connected', trigger: 'OAuth callback exchanged the code for tokens' },
  sync_started: { from: ['connected', 'idle', 'error'], to: 'syncing', trigger: 'POST /v1/connectors/{id}/sync or the scheduler' },
  vendor_rate_limited: { from: ['syncing'], to: 'rate_limited', trigger: 'the vendor answered 429; waiting for Retry-After or backoff' },
  rate_limit_cleared: { from: ['rate_limited'], to: 'syncing', trigger: 'the wait is over; the sync continues from its checkpoint' },
  sync_completed: { from: ['syncing'], to: 'idle', trigger: 'every page of the sync was stored' },
  sync_failed: { from: ['syncing', 'rate_limited'], to: 'error', trigger: 'the sync failed after its retries' },
  auth_revoked: { from: ['connecting', 'connected', 'syncing', 'idle', 'error', 'rate_limited', 'paused'], to: 'disconnected', trigger: 'OAuth refresh failed or tokens were revoked' },
  reconnect: { from: ['disconnected', 'error'], to: 'connecting', trigger: 'new credentials supplied (PUT /v1/connectors/{id}/credentials) or OAuth restarted' },
  pause: { from: ACTIVE, to: 'paused', trigger: 'POST /v1/connectors/{id}/pause (a running sync stops at its next checkpoint)' },
  resume: { from: ['paused'], to: 'previous', trigger: 'POST /v1/connectors/{id}/resume' },
};

export type TransitionOutcome = { ok: true; to: ConnectorState } | { ok: false; reason: string };

/** Where a paused connector goes back to: a sync that was running resumes as `connected` (the scheduler requeues it). */
export function resumeTarget(pausedFrom: ConnectorState | null): ConnectorState {
  switch (pausedFrom) {
    case 'idle':
    case 'error':
    case 'connecting':
      return pausedFrom;
    default:
      return 'connected';
  }
}

/** Pure: the next state for an event, or why it is not allowed from `from`. */
export function nextState(from: ConnectorState, event: ConnectorEvent, pausedFrom: ConnectorState | null = null): TransitionOutcome {
  const rule = TRANSITIONS[event];
  if (!rule.from.includes(from)) {
    return { ok: false, reason: `a connector in state '${from}' cannot take '${event}' (allowed from: ${rule.from.join(', ')})` };
  }
  return { ok: true, to: rule.to === 'previous' ? resumeTarget(pausedFrom) : rule.to };
}

export function isConnectorState(s: string): s is ConnectorState {
  return (CONNECTOR_STATES as readonly string[]).includes(s);
}

/** Why a sync cannot start from this state, phrased for the 409 answer. */
export function syncBlockedReason(state: ConnectorState): string | null {
  switch (state) {
    case 'syncing':
    case 'rate_limited':
      return 'a sync is already running for this connector';
    case 'paused':
      return 'the connector is paused: POST /v1/connectors/{id}/resume first';
    case 'disconnected':
      return 'the connector is disconnected: reconnect it (OAuth or new credentials) first';
    case 'connecting':
      return 'the connector is still connecting: its credentials have not been validated yet';
    default:
      return null;
  }
}
