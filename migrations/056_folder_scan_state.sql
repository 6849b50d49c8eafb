-- Folder sources created by `atrium ingest` kept their scan state in settings.scan_state, which the filesystem
-- kind's strict settings schema refuses: a server sync of such a source failed ("unrecognized key: scan_state").
-- The state is the same FolderState the server's own syncs keep in sync_cursor: move it there.
UPDATE connectors
   SET sync_cursor = coalesce(sync_cursor, settings->'scan_state'),
       settings = settings - 'scan_state'
 WHERE connector_type = 'filesystem' AND settings ? 'scan_state';
