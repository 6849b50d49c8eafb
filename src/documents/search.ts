import type { DocumentsDeps, Passage, SearchRequest } from './types.ts';

/** Hybrid retrieval (BM25 over full-text + vector k-NN), fused. */
export async function searchPassages(_deps: DocumentsDeps, _req: SearchRequest): Promise<Passage[]> {
  throw new Error('searchPassages: landing shortly');
}
