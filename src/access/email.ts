/** How an email is compared everywhere (key bindings, the identity directory): trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
