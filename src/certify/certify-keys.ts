import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { EnvdataError } from '../errors/envdata-error.js';

/** A new Ed25519 key pair as PEM: the private key PKCS#8, the public key SPKI. */
export function generateCertifyKeys(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** An Ed25519 private key from PEM (`where` names it in the error, never its text). */
export function readPrivateKey(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new EnvdataError('USAGE', `${where} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new EnvdataError('USAGE', `${where} is a ${key.asymmetricKeyType} key, not Ed25519`);
  }
  return key;
}

/** An Ed25519 public key from PEM (SPKI). */
export function readPublicKey(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new EnvdataError('USAGE', `${where} is not a PEM public key`);
  }
  if (key.type !== 'public') throw new EnvdataError('USAGE', `${where} is not a public key`);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new EnvdataError('USAGE', `${where} is a ${key.asymmetricKeyType} key, not Ed25519`);
  }
  return key;
}
