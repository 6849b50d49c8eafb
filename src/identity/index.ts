export {
  type AccountRecord,
  forgetConnectorIdentities,
  type GroupMembers,
  listAccounts,
  listPeople,
  lookupPerson,
  mapAccount,
  type PersonDirectoryEntry,
  replaceGroupMembers,
  upsertAccounts,
  type VendorAccount,
} from './directory.ts';
export { ACT_AS_HEADER, looksLikeEmail, type ResolvedView, resolveView, type ViewDeps, type ViewRequest } from './view.ts';
export { mapAccountAs, setManualGroupMembers } from './admin.ts';
export { directoryChanged } from './generation.ts';
export { cachedLookupPerson, PERSON_CACHE_MS } from './person-cache.ts';
export { normalizeEmail } from '../access/index.ts';
