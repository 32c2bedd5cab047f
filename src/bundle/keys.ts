import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { FILE_LIMITS, readTextFile } from '../core/files.js';

/**
 * Ed25519 keys as PEM (RFC 8410): a PKCS#8 private key to sign a bundle, an SPKI public key to
 * verify one. `openssl genpkey -algorithm ed25519 -out sign-key.pem` makes the first and
 * `openssl pkey -in sign-key.pem -pubout -out public-key.pem` the second. Ed25519 (RFC 8032) signs
 * the message itself, with no separate digest, hence `null` as the algorithm below.
 *
 * A private key is never printed: errors name the file, not its content.
 */

function readPem(path: string, what: string): string {
  return readTextFile(path, what, FILE_LIMITS.key);
}

export function loadSigningKey(path: string): KeyObject {
  const pem = readPem(path, '--sign-key');
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----/.test(pem))
    throw new UsageError(
      `--sign-key ${path}: the key is encrypted; give an unencrypted PKCS#8 PEM key (keep it in a CI secret)`,
    );
  if (!/-----BEGIN PRIVATE KEY-----/.test(pem))
    throw new UsageError(
      `--sign-key ${path}: not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----); make one with: openssl genpkey -algorithm ed25519`,
    );
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new UsageError(`--sign-key ${path}: the PEM private key cannot be read`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(
      `--sign-key ${path}: an ${key.asymmetricKeyType ?? 'unknown'} key; bundles are signed with Ed25519 (openssl genpkey -algorithm ed25519)`,
    );
  return key;
}

export function loadPublicKey(path: string): KeyObject {
  const pem = readPem(path, '--public-key');
  if (/PRIVATE KEY-----/.test(pem))
    throw new UsageError(
      `--public-key ${path}: this is a private key; give the public one (openssl pkey -in KEY -pubout)`,
    );
  return parsePublicKey(pem, (problem) => new UsageError(`--public-key ${path}: ${problem}`));
}

/** A PEM SPKI Ed25519 public key, or the error `fail` makes of the problem. */
export function parsePublicKey(pem: string, fail: (problem: string) => Error): KeyObject {
  if (!/^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----\s*$/.test(pem.trim() + '\n'))
    throw fail('not a PEM public key (-----BEGIN PUBLIC KEY-----)');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch {
    throw fail('the PEM public key cannot be read');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw fail(`an ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

export function publicKeyPem(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'pem' }).toString();
}

/** `SHA256:<hex>` of the DER SubjectPublicKeyInfo: how people compare keys. */
export function keyFingerprint(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return `SHA256:${createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}

export function signBytes(data: Buffer, key: KeyObject): string {
  return sign(null, data, key).toString('base64');
}

export function verifyBytes(data: Buffer, key: KeyObject, signatureBase64: string): boolean {
  const signature = Buffer.from(signatureBase64, 'base64');
  // An Ed25519 signature is 64 bytes (RFC 8032 §5.1.6); anything else is not one.
  if (signature.length !== 64 || signature.toString('base64') !== signatureBase64) return false;
  try {
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}

/** A signer the verifier trusts: its key, the name the keys file gives it, and the operators it may sign for. */
export interface TrustedKey {
  key: KeyObject;
  name?: string;
  /** `# signs for: A, B`: the operator names (run --operator) its bundles may carry; absent: its name only. */
  signsFor?: string[];
}

/**
 * `verify-bundle --trusted-keys FILE`: the programme's signers, one or more PEM SPKI Ed25519 public
 * keys, each optionally named by the comment line just above it:
 *
 *   # Acme Ltd
 *   # signs for: Acme Ltd, Acme Europe GmbH
 *   -----BEGIN PUBLIC KEY-----
 *   …
 *   -----END PUBLIC KEY-----
 *
 * A key signs for the operators its `# signs for:` line names, or else for its name: a bundle
 * naming another operator (run --operator) is refused, whoever's key it is (verify.ts).
 *
 * Blank lines and other comments are ignored; anything else is refused (one line, exit 2), so a
 * truncated or mixed-up file is not read as fewer keys than it was meant to hold.
 */
export function loadTrustedKeys(path: string): TrustedKey[] {
  const text = readTextFile(path, '--trusted-keys', { maxBytes: 1024 * 1024, of: 'a file of public keys' });
  const fail = (line: number, problem: string): UsageError =>
    new UsageError(`--trusted-keys ${path}: line ${line}: ${problem}`);
  const keys: TrustedKey[] = [];
  const lines = text.split(/\r?\n/);
  let name: string | undefined;
  let signsFor: string[] | undefined;
  // A name is printable text of one line, shown in findings.
  const shown = (text: string): string => text.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?').slice(0, 100);
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] ?? '').trim();
    if (line === '') continue;
    const bound = /^#\s*signs for:(.*)$/i.exec(line);
    if (bound) {
      signsFor = (bound[1] ?? '')
        .split(',')
        .map((n) => shown(n.trim()))
        .filter((n) => n !== '');
      if (signsFor.length === 0)
        throw fail(i + 1, '"# signs for:" names no operator; give one or more, separated by commas');
      continue;
    }
    if (line.startsWith('#')) {
      name = line.slice(1).trim() || undefined;
      continue;
    }
    if (/PRIVATE KEY-----/.test(line))
      throw fail(i + 1, 'a private key; give public keys only (openssl pkey -in KEY -pubout)');
    if (line !== '-----BEGIN PUBLIC KEY-----')
      throw fail(i + 1, 'neither a "# name" line nor the start of a PEM public key (-----BEGIN PUBLIC KEY-----)');
    const start = i;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '-----END PUBLIC KEY-----');
    if (end < 0) throw fail(start + 1, 'a PEM public key without its -----END PUBLIC KEY----- line');
    const key = parsePublicKey(
      `${lines
        .slice(start, end + 1)
        .map((l) => l.trim())
        .join('\n')}\n`,
      (problem) => fail(start + 1, problem),
    );
    keys.push({
      key,
      ...(name !== undefined ? { name: shown(name) } : {}),
      ...(signsFor !== undefined ? { signsFor } : {}),
    });
    name = undefined;
    signsFor = undefined;
    i = end;
  }
  if (keys.length === 0)
    throw new UsageError(`--trusted-keys ${path}: holds no public key; give one or more PEM Ed25519 public keys`);
  return keys;
}

/** The signers a verifier trusts: the one key of --public-key, or the programme's file of --trusted-keys. */
export interface Trust {
  source: '--public-key' | '--trusted-keys';
  keys: TrustedKey[];
}

/** verify-bundle's, matrix's and combine-bundles' --public-key or --trusted-keys, read; neither given: undefined. */
export function trustOf(publicKey: string | undefined, trustedKeys: string | undefined): Trust | undefined {
  if (publicKey !== undefined && trustedKeys !== undefined)
    throw new UsageError(
      "--public-key and --trusted-keys are both given; give one: the key you trust, or the file of the programme's signers",
    );
  if (publicKey !== undefined) return { source: '--public-key', keys: [{ key: loadPublicKey(publicKey) }] };
  return trustedKeys !== undefined ? { source: '--trusted-keys', keys: loadTrustedKeys(trustedKeys) } : undefined;
}
