export {
  type AccountRecord,
  forgetConnectorIdentities,
  type GroupMembers,
  listAccounts,
  listPeople,
  lookupPerson,
  mapAccount,
  normalizeEmail,
  type PersonDirectoryEntry,
  replaceGroupMembers,
  upsertAccounts,
  type VendorAccount,
} from './directory.ts';
export { ACT_AS_HEADER, looksLikeEmail, type ResolvedView, resolveView, type ViewDeps, type ViewRequest } from './view.ts';
