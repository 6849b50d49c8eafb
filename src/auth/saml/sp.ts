import { randomBytes } from 'node:crypto';
import { generateServiceProviderMetadata, SAML, ValidateInResponseTo } from '@node-saml/node-saml';

export const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
export const ACS_PATH = '/v1/auth/saml/callback';

/** Our SP identity: entity id and audience are the public URL; the ACS is the one POST callback. */
export function spEndpoints(publicUrl: string): { entityId: string; acsUrl: string } {
  return { entityId: publicUrl, acsUrl: `${publicUrl}${ACS_PATH}` };
}

/** SP metadata XML for the IdP admin. AuthnRequests are not signed, so no signing certificate is listed. */
export function spMetadata(publicUrl: string): string {
  const { entityId, acsUrl } = spEndpoints(publicUrl);
  return generateServiceProviderMetadata({
    issuer: entityId,
    callbackUrl: acsUrl,
    identifierFormat: NAMEID_EMAIL,
    wantAssertionsSigned: true,
  });
}

/** A fresh AuthnRequest id: an XML NCName (must not start with a digit), 160 random bits. */
export function newRequestId(): string {
  return `_${randomBytes(20).toString('hex')}`;
}

/** The IdP URL carrying a deflated AuthnRequest (HTTP-Redirect binding) with this request id. */
export async function authnRequestUrl(input: { publicUrl: string; idpSsoUrl: string; requestId: string; relayState: string }): Promise<string> {
  const { entityId, acsUrl } = spEndpoints(input.publicUrl);
  const saml = new SAML({
    entryPoint: input.idpSsoUrl,
    issuer: entityId,
    callbackUrl: acsUrl,
    idpCert: 'unused-for-requests',
    identifierFormat: NAMEID_EMAIL,
    validateInResponseTo: ValidateInResponseTo.never,
    disableRequestedAuthnContext: true,
    generateUniqueId: () => input.requestId,
  });
  return saml.getAuthorizeUrlAsync(input.relayState, undefined, {});
}
