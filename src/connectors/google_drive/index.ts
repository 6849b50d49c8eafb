import { type KindDefinition, validateWith } from '../kit/index.ts';
import { driveJson } from './client.ts';
import { aboutUser, type DriveCredentials, type DriveSettings, driveCredentials, driveSettings } from './schemas.ts';
import { type DriveCursor, type DrivePage, driveSync } from './sync.ts';

/** Google Drive (files): Google Docs, Sheets and Slides exported as text, PDF, DOCX and text files; My Drive and shared drives; per-file permissions. */
export const googleDriveKind: KindDefinition<DriveCredentials, DriveSettings, DriveCursor, DrivePage> = {
  type: 'google_drive',
  displayName: 'Google Drive',
  category: 'files',
  group: 'productivity',
  // Google issues no personal API token for a user's Drive: OAuth only (a service account with domain-wide delegation is not supported).
  authTypes: ['oauth2'],
  credentials: driveCredentials,
  settings: driveSettings,
  contentTypes: ['documents', 'spreadsheets', 'presentations', 'pdfs', 'files'],
  // Drive allows 12,000 queries per 60 s per project and as many per user (Drive API "Usage limits"; projects created
  // since May 2026 are metered in quota units instead). One OAuth client (project) serves every connector of the
  // deployment, so each connector takes 1/20 of that: 600 requests a minute (10/s), leaving room for ~20 at full speed.
  vendorLimits: { perMinute: 600 },
  hasUsableCredentials: (c) => Boolean(c.access_token),
  validate: validateWith(async (ctx) => {
    const about = await driveJson(ctx, '/drive/v3/about', { fields: 'user(emailAddress,displayName,permissionId)' }, aboutUser);
    return { account: about.user.emailAddress?.toLowerCase() ?? about.user.displayName };
  }),
  sync: driveSync,
  oauth: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    // Directory groups (members.ts): only a Workspace admin's grant makes it answer; for anyone else the sync says so.
    scopes: ['https://www.googleapis.com/auth/drive.readonly', 'https://www.googleapis.com/auth/admin.directory.group.readonly'],
    // offline + consent: Google returns a refresh token (access tokens last an hour), also when the user had consented before.
    extraAuthorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  },
};
