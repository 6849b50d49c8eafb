import { z } from 'zod';
import { commonSettings } from '../kit/index.ts';

export const gmailCredentials = z
  .object({
    access_token: z
      .string()
      .min(1)
      .optional()
      .describe('OAuth 2.0 access token with scope https://www.googleapis.com/auth/gmail.readonly (filled and refreshed by the OAuth flow; Google has no personal API token for Gmail)'),
  })
  .strict();
export type GmailCredentials = z.infer<typeof gmailCredentials>;

const labelRef = z
  .string()
  .trim()
  .min(1)
  .max(225)
  .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20), 'a Gmail label id (INBOX, SENT, Label_12…) or a label name, without control characters');

export const gmailSettings = z
  .object({
    labels: z
      .array(labelRef)
      .min(1)
      .max(50)
      .optional()
      .describe(
        'only messages carrying at least one of these labels: label ids (INBOX, SENT, IMPORTANT, Label_12…) or label names as shown in Gmail ("Projects/Atlas"); default: all mail except spam, trash and drafts',
      ),
    query: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe('only messages matching this Gmail search query (the search box syntax, e.g. "from:@example.com newer_than:1y -category:promotions")'),
    ...commonSettings,
  })
  .strict();
export type GmailSettings = z.infer<typeof gmailSettings>;

/** Gmail API v1 answers (developers.google.com/workspace/gmail/api/reference/rest), kept to what the sync reads. */
export const profile = z.object({ emailAddress: z.string(), historyId: z.string(), messagesTotal: z.number().optional() });

export const labelList = z.object({ labels: z.array(z.object({ id: z.string(), name: z.string(), type: z.string().optional() })).default([]) });

const messageRef = z.object({ id: z.string(), threadId: z.string().optional() });
export const messageList = z.object({ messages: z.array(messageRef).default([]), nextPageToken: z.string().optional(), resultSizeEstimate: z.number().optional() });

export interface MessagePart {
  partId?: string | undefined;
  mimeType?: string | undefined;
  filename?: string | undefined;
  headers?: { name: string; value: string }[] | undefined;
  body?: { attachmentId?: string | undefined; size?: number | undefined; data?: string | undefined } | undefined;
  parts?: MessagePart[] | undefined;
}
export const messagePart: z.ZodType<MessagePart> = z.lazy(() =>
  z.object({
    partId: z.string().optional(),
    mimeType: z.string().optional(),
    filename: z.string().optional(),
    headers: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
    body: z.object({ attachmentId: z.string().optional(), size: z.number().optional(), data: z.string().optional() }).optional(),
    parts: z.array(messagePart).optional(),
  }),
);

export const message = z.object({
  id: z.string(),
  threadId: z.string(),
  labelIds: z.array(z.string()).default([]),
  snippet: z.string().optional(),
  historyId: z.string().optional(),
  /** Milliseconds since the epoch, as a decimal string: when Gmail received (or the user sent) the message. */
  internalDate: z.string().optional(),
  sizeEstimate: z.number().optional(),
  payload: messagePart.optional(),
});
export type GmailMessage = z.infer<typeof message>;

const historyMessage = z.object({ message: messageRef });
export const historyList = z.object({
  history: z
    .array(
      z.object({
        id: z.string(),
        messagesAdded: z.array(historyMessage).optional(),
        messagesDeleted: z.array(historyMessage).optional(),
        labelsAdded: z.array(historyMessage).optional(),
        labelsRemoved: z.array(historyMessage).optional(),
      }),
    )
    .default([]),
  nextPageToken: z.string().optional(),
  historyId: z.string(),
});
export type HistoryList = z.infer<typeof historyList>;
