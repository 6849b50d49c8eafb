/**
 * A signal that aborts with a `TimeoutError` after `ms`, for combining with others in `AbortSignal.any`.
 * Node 20's `AbortSignal.any` holds its sources weakly, and `AbortSignal.timeout`'s timer holds its signal
 * weakly too, so a timeout signal that only a composite refers to can be garbage-collected before it fires
 * and the composite never aborts (nodejs/node#57736: a hung vendor request then waited for undici's 300 s
 * header timeout). Here the timer's callback holds the controller, so the signal lives until it fires. The
 * timer is unref'd: it never keeps the process alive. Passed to `fetch` alone, `AbortSignal.timeout` is fine.
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
  return controller.signal;
}
