export { type AuditActor, type AuditEvent, type AuditInput, type AuditQuery, flushAudit, queryAudit, recordAudit, recordAuditDeferred } from './audit.ts';
