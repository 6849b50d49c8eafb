export { parseSelfHostedConfig, type SelfHostedConfig, selfHostedConfigSchema } from './config.ts';
export { SELF_HOSTED_HTTP_PATHS, SELF_HOSTED_WS_PATH, type SelfHostedServer, startSelfHostedServer } from './server.ts';
