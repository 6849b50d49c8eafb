export { type AuditActor, type AuditEvent, type AuditInput, type AuditQuery, flushAudit, queryAudit, recordAudit, recordAuditBy, recordAuditDeferred } from './audit.ts';
