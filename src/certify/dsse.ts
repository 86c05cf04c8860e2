import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/** A DSSE envelope (https://github.com/secure-systems-lab/dsse, envelope.md). */
export interface DsseEnvelope {
  readonly payloadType: string;
  /** The payload, base64 (standard alphabet, padded). */
  readonly payload: string;
  readonly signatures: readonly { readonly keyid: string; readonly sig: string }[];
}

/** The payload type of an in-toto Statement in DSSE. */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/**
 * DSSE's pre-authentication encoding, what is signed:
 * `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths as ASCII decimal byte counts.
 */
export function pae(payloadType: string, body: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${body.length} `, 'utf8'),
    body,
  ]);
}

/** A key's id in envdata's envelopes: SHA-256 (hex) of its public key's SPKI DER. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('hex');
}

/** Signs `body` with an Ed25519 private key into a one-signature envelope. */
export function signEnvelope(
  payloadType: string,
  body: Buffer,
  privateKey: KeyObject,
): DsseEnvelope {
  const sig = sign(null, pae(payloadType, body), privateKey);
  return {
    payloadType,
    payload: body.toString('base64'),
    signatures: [{ keyid: keyIdOf(privateKey), sig: sig.toString('base64') }],
  };
}

/**
 * Whether one of the envelope's signatures is the public key's over its payload. The keyid is
 * a hint only: every signature is tried against the key the verifier holds.
 */
export function envelopeVerifies(envelope: DsseEnvelope, publicKey: KeyObject): boolean {
  const body = strictBase64(envelope.payload);
  if (body === undefined) return false;
  const message = pae(envelope.payloadType, body);
  return envelope.signatures.some((s) => {
    const sig = strictBase64(s.sig);
    if (sig === undefined) return false;
    try {
      return verify(null, message, publicKey, sig);
    } catch {
      return false;
    }
  });
}

/**
 * The bytes of standard padded base64, or `undefined` when the text is not exactly that (Node
 * skips characters it does not know: an edited envelope must not decode to the same bytes).
 */
export function strictBase64(text: string): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}
