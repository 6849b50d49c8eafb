-- A random id per tenant that federated requests carry (x-atrium-origin, src/federation/remote.ts): a node that
-- receives its own id is the origin itself, reached through a DNS name or proxy that leads back to it.
ALTER TABLE tenants ADD COLUMN federation_origin text NOT NULL DEFAULT gen_random_uuid()::text;
