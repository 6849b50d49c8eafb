-- The bootstrap key (ATRIUM_ADMIN_API_KEY) is chosen by a person and was listed with its first 10 characters:
-- keep at most 4 (src/access/api-keys.ts BOOTSTRAP_PREFIX_LENGTH), also when the variable is no longer set.
UPDATE api_keys SET key_prefix = left(key_prefix, 4) WHERE id = 'key_bootstrap' AND length(key_prefix) > 4;
