export { type AuditEvent, type AuditInput, type AuditQuery, queryAudit, recordAudit } from './audit.ts';
