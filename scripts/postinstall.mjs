// npm postinstall: prepares generated model caches (scripts/prepare-models.ts). Must never fail an
// install, so even a missing loader only warns.
try {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./prepare-models.ts');
} catch (err) {
  console.warn(`atrium: skipped preparing model caches (${err instanceof Error ? err.message : String(err)})`);
}
