-- The federated query prunes old activity rows of every user at once (src/federation/activity.ts).
CREATE INDEX federation_activity_time_idx ON federation_activity (occurred_at);
