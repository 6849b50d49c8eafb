import { z } from 'zod';

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().describe('stable machine-readable error code'),
      message: z.string().describe('what went wrong and what to do about it'),
      details: z.unknown().optional(),
    }),
  })
  .describe('The error shape of every endpoint')
  // One named component (`#/components/schemas/Error`) the operations refer to, so clients generate one error type.
  .meta({ id: 'Error' });

export const isoTimestamp = z.string().describe('ISO 8601 UTC timestamp');
