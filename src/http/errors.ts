import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, type AppErrorCode, clientErrorFromDatabase, Errors, isAppError } from '../platform/errors.ts';

function fromFastify(err: FastifyError, request: FastifyRequest): AppError | null {
  if (hasZodFastifySchemaValidationErrors(err)) {
    const where = err.validationContext ?? 'body';
    const problems = err.validation.map((v) => {
      const field = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      return { path: field ? `${where}.${field}` : where, message: v.message ?? 'invalid' };
    });
    const first = problems[0];
    return Errors.validation(first ? `invalid ${first.path}: ${first.message}` : 'invalid request', problems);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return Errors.malformedJson(err.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return Errors.payloadTooLarge(`request body exceeds the limit of ${request.routeOptions.bodyLimit ?? 'the configured'} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return Errors.unsupportedMediaType(String(request.headers['content-type'] ?? ''));
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return Errors.malformedJson(err.message);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError(fastifyCode(err.code), err.statusCode, err.message);
  }
  return null;
}

/** The one place an error reaches the HTTP wire: `{error: {code, message, details?}}`. */
export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  let appErr: AppError;
  if (isAppError(err)) appErr = err;
  else if (isResponseSerializationError(err)) appErr = Errors.internal(err);
  else appErr = clientErrorFromDatabase(err) ?? fromFastify(err as FastifyError, request) ?? Errors.internal(err);

  if (appErr.status >= 500) {
    request.log.error({ err: appErr.cause ?? err, code: appErr.code }, 'request failed');
  } else {
    request.log.info({ code: appErr.code, status: appErr.status }, 'request rejected');
  }
  for (const [k, v] of Object.entries(appErr.headers)) reply.header(k, v);
  const body: { error: { code: string; message: string; details?: unknown } } = {
    error: { code: appErr.code, message: appErr.message },
  };
  if (appErr.details !== undefined) body.error.details = appErr.details;
  return reply.status(appErr.status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** A Fastify client error's code as the catalogue's `fst_err_*` family (platform/errors.ts), else `bad_request`. */
function fastifyCode(code: unknown): AppErrorCode {
  const c = String(code ?? '').toLowerCase();
  return c.startsWith('fst_err_') ? `fst_err_${c.slice('fst_err_'.length)}` : 'bad_request';
}
