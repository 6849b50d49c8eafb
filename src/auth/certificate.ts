import { X509Certificate } from 'node:crypto';
import { type Problem, problem } from './problems.ts';

export interface CertificateInfo {
  /** Normalized PEM, one certificate. */
  readonly pem: string;
  readonly subject: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly fingerprintSha256: string;
}

/** Accepts a PEM certificate (or its bare base64 body), normalizes it and reads its validity window. */
export function parseCertificate(text: string): { cert: CertificateInfo } | { problem: Problem } {
  const body = text
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '');
  if (!body || !/^[A-Za-z0-9+/]+=*$/.test(body) || (text.match(/BEGIN CERTIFICATE/g)?.length ?? 0) > 1) {
    return { problem: problem('sso_idp_certificate_invalid', 'idp_certificate must be exactly one PEM certificate') };
  }
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    const x = new X509Certificate(pem);
    return {
      cert: {
        pem,
        subject: x.subject.replace(/\n/g, ', '),
        notBefore: new Date(x.validFrom),
        notAfter: new Date(x.validTo),
        fingerprintSha256: x.fingerprint256,
      },
    };
  } catch {
    return { problem: problem('sso_idp_certificate_invalid', 'idp_certificate does not parse as an X.509 certificate') };
  }
}

/** An IdP certificate outside its validity window cannot be trusted: the spec's "expired IdP certificate". */
export function certificateValidityProblem(cert: CertificateInfo, now: Date): Problem | null {
  if (now.getTime() >= cert.notAfter.getTime()) {
    return problem('sso_idp_certificate_expired', `the IdP certificate (${cert.subject}) expired at ${cert.notAfter.toISOString()}`);
  }
  if (now.getTime() < cert.notBefore.getTime()) {
    return problem('sso_idp_certificate_invalid', `the IdP certificate (${cert.subject}) is not valid before ${cert.notBefore.toISOString()}`);
  }
  return null;
}
