import type { KeyObject } from 'node:crypto';
import { CANONICAL_FORM } from './canonical-form.js';
import {
  COMPLETENESS_PREDICATE,
  STATEMENT_TYPE,
  type CompletenessStatement,
} from './completeness-statement.js';
import { envelopeVerifies, IN_TOTO_PAYLOAD_TYPE, keyIdOf, type DsseEnvelope } from './dsse.js';

/** Why a certificate cannot be trusted or read, in one line. */
export class CertificateRefused extends Error {
  constructor(
    message: string,
    /** `signature`: it is not signed by the key held; `format`: not a certificate envdata reads. */
    readonly kind: 'signature' | 'format',
  ) {
    super(message);
  }
}

/**
 * The statement of a certificate (the text of a DSSE envelope), once its signature verifies with
 * the public key the verifier holds (never one the certificate brings). Throws
 * `CertificateRefused`: "signature does not verify (key id …)" naming the key held and the key
 * ids the envelope claims, or what is not a completeness certificate of a known form.
 */
export function openCertificate(text: string, publicKey: KeyObject): CompletenessStatement {
  let envelope: DsseEnvelope;
  try {
    envelope = JSON.parse(text) as DsseEnvelope;
  } catch {
    throw new CertificateRefused('not a DSSE envelope (not JSON)', 'format');
  }
  if (
    typeof envelope !== 'object' ||
    envelope === null ||
    typeof envelope.payload !== 'string' ||
    typeof envelope.payloadType !== 'string' ||
    !Array.isArray(envelope.signatures)
  ) {
    throw new CertificateRefused(
      'not a DSSE envelope (payloadType, payload, signatures)',
      'format',
    );
  }
  const held = keyIdOf(publicKey);
  if (!envelopeVerifies(envelope, publicKey)) {
    const claimed = envelope.signatures.map((s) => String(s?.keyid)).join(', ');
    throw new CertificateRefused(
      `signature does not verify (key id ${held}${claimed && claimed !== held ? `; the certificate names ${claimed}` : ''})`,
      'signature',
    );
  }
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    throw new CertificateRefused(`payload type ${envelope.payloadType} is not in-toto`, 'format');
  }
  const statement = JSON.parse(
    Buffer.from(envelope.payload, 'base64').toString('utf8'),
  ) as CompletenessStatement;
  if (statement._type !== STATEMENT_TYPE || statement.predicateType !== COMPLETENESS_PREDICATE) {
    throw new CertificateRefused(
      `not an envdata completeness statement (_type ${statement._type}, predicateType ${statement.predicateType})`,
      'format',
    );
  }
  if (statement.predicate.canonicalForm !== CANONICAL_FORM) {
    throw new CertificateRefused(
      `canonical form ${statement.predicate.canonicalForm} is not one this envdata knows (${CANONICAL_FORM})`,
      'format',
    );
  }
  return statement;
}
