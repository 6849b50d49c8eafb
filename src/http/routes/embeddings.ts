import { z } from 'zod';
import { providerKindOf } from '../../embeddings/index.ts';
import { Errors } from '../../platform/errors.ts';
import type { App } from '../app.ts';
import type { AppDeps } from '../deps.ts';

export const MAX_EMBEDDING_INPUTS = 256;
export const MAX_EMBEDDING_INPUT_CHARS = 32_768;

const modelInfo = z.object({
  id: z.string(),
  dimensions: z.number().int(),
  provider: z.enum(['builtin', 'openai-compatible', 'onnx']),
  default: z.boolean(),
});

export async function embeddingRoutes(app: App, deps: AppDeps): Promise<void> {
  const registry = () => {
    if (!deps.embeddings) throw Errors.unavailable('no embedding models are configured on this instance');
    return deps.embeddings;
  };

  app.post(
    '/v1/embeddings',
    {
      config: { permission: 'query' },
      schema: {
        summary: 'Embed texts with the same model and vectors the index uses',
        tags: ['embeddings'],
        body: z.object({
          input: z.array(z.string().max(MAX_EMBEDDING_INPUT_CHARS)).min(1).max(MAX_EMBEDDING_INPUTS),
          model: z.string().min(1).max(200).optional().describe('a model id from GET /v1/embeddings/models; default: the instance default'),
        }).strict(),
        response: {
          200: z.object({
            model: z.string(),
            dimensions: z.number().int(),
            data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()) })),
          }),
        },
      },
    },
    async (request) => {
      const reg = registry();
      const id = request.body.model ?? reg.defaultId;
      const provider = reg.get(id);
      if (!provider) throw Errors.notFound('embedding model', id);
      // Stop embedding (worker time) when the client goes away.
      const controller = new AbortController();
      const onClose = () => controller.abort(new Error('client disconnected'));
      request.raw.socket?.once('close', onClose);
      try {
        const vectors = await provider.embed(request.body.input, controller.signal);
        return {
          model: provider.id,
          dimensions: provider.dimensions,
          data: vectors.map((v, index) => ({ index, embedding: Array.from(v) })),
        };
      } finally {
        request.raw.socket?.off('close', onClose);
      }
    },
  );

  app.get(
    '/v1/embeddings/models',
    {
      config: { permission: 'query' },
      schema: { summary: 'The embedding models this instance can use', tags: ['embeddings'], response: { 200: z.object({ models: z.array(modelInfo) }) } },
    },
    async () => {
      const reg = registry();
      return {
        models: reg.list().map((p) => ({ id: p.id, dimensions: p.dimensions, provider: providerKindOf(p.id), default: p.id === reg.defaultId })),
      };
    },
  );
}
