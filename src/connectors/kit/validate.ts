import type { CredentialCheck, SourceContext } from './contract.ts';
import { findVendorError, VendorAuthError } from './errors.ts';

/**
 * A kind's `validate()` from one probe call: the probe answers the account it authenticated as (and optionally a
 * settings patch it discovered); a VendorAuthError anywhere in what it throws becomes `{ ok: false, message }`
 * (the connector goes to `error` with that message); any other failure is rethrown, so the validation job retries.
 * `mapError` turns an SDK's own error type into the kit's vendor errors first.
 */
export function validateWith<C, S>(
  probe: (ctx: SourceContext<C, S>) => Promise<{ account?: string; settings?: Record<string, unknown> } | { ok: false; message: string }>,
  mapError: (err: unknown) => unknown = (err) => err,
): (ctx: SourceContext<C, S>) => Promise<CredentialCheck> {
  return async (ctx) => {
    try {
      const r = await probe(ctx);
      if ('ok' in r) return r;
      return { ok: true, ...(r.account ? { account: r.account } : {}), ...(r.settings ? { settings: r.settings } : {}) };
    } catch (err) {
      const mapped = mapError(err);
      const vendor = findVendorError(mapped);
      if (vendor instanceof VendorAuthError) return { ok: false, message: vendor.message };
      throw mapped;
    }
  };
}
