// A process that writes to an embedded data folder and is killed (SIGKILL) before its vector index is saved again:
// test/documents/ann.test.ts then opens the folder and checks nothing was lost or came back.
import { annFlush } from '../../src/documents/ann/index.ts';
import { deleteDocuments, upsertDocuments } from '../../src/documents/index.ts';
import { migrate, openPglite } from '../../src/platform/db/index.ts';
import { silentLog } from '../support/db.ts';
import { annDeps, corpus } from './ann-support.ts';

const dir = process.env.ANN_DATA_DIR;
if (!dir) throw new Error('ANN_DATA_DIR');
const db = await openPglite(dir, { command: 'ann-child' });
await migrate(db, silentLog);
const deps = annDeps(db);
await db.query(`INSERT INTO connectors (id, tenant_id, connector_type, display_name) VALUES ('src', 'default', 'api', 'src') ON CONFLICT DO NOTHING`);
await upsertDocuments(deps, { tenantId: 'default', connectorId: 'src', documents: corpus(300, 'a') });
// The index file now holds batch a; what follows reaches only the database before the kill.
await annFlush(db);
await upsertDocuments(deps, { tenantId: 'default', connectorId: 'src', documents: corpus(100, 'b') });
await deleteDocuments(deps, { tenantId: 'default', connectorId: 'src', externalIds: Array.from({ length: 50 }, (_, i) => `a-${i}`) });
process.stdout.write('written\n');
process.kill(process.pid, 'SIGKILL');
