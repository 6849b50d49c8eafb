import { DEFAULT_INDEX_SETTINGS, type DocumentsDeps, type IndexSettings } from './types.ts';

const LANGUAGE = /^[a-z_]{2,63}$/;

/** The effective index settings: defaults, overridden by the configuration, overridden by `deps.documentIndex`. */
export function resolveSettings(deps: Pick<DocumentsDeps, 'documentIndex' | 'config'>): IndexSettings {
  const s = { ...DEFAULT_INDEX_SETTINGS, ...deps.config?.documents, ...deps.documentIndex };
  // The language is interpolated as a regconfig parameter; keep it to a plain identifier.
  if (!LANGUAGE.test(s.ftsLanguage)) throw new Error(`invalid full-text language '${s.ftsLanguage}'`);
  return s;
}
