import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** An Ed25519 signing key, and where its private and public halves were written (PEM). */
export interface Keys {
  key: KeyObject;
  privatePath: string;
  publicPath: string;
}

/** A fresh Ed25519 key pair for signing bundles, written to `dir` as `name.pem` and `name.pub.pem`. */
export async function keyPair(dir: string, name: string): Promise<Keys> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePath = join(dir, `${name}.pem`);
  const publicPath = join(dir, `${name}.pub.pem`);
  await writeFile(privatePath, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(publicPath, publicKey.export({ type: 'spki', format: 'pem' }));
  return { key: privateKey, privatePath, publicPath };
}
