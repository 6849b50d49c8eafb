import { ADMIN_KEY } from '../support/app.ts';

/** JSON calls to a running service at `base()`, with the admin key unless another is given (browser tests' setup). */
export function apiCaller(base: () => string) {
  return async function call<T = unknown>(method: string, url: string, body?: unknown, key = ADMIN_KEY): Promise<{ status: number; json: T }> {
    const res = await fetch(base() + url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
  };
}
