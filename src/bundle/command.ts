import { lstatSync } from 'node:fs';
import { styleText } from 'node:util';
import { UsageError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { oneLine, plural, printable } from '../core/wording.js';
import { loadProfile } from '../certification/profile.js';
import { isArchivePath, withBundle } from './archive.js';
import { trustOf } from './keys.js';
import { verifyBundle, type BundleFinding, type BundleVerdict } from './verify.js';

/** `carrier-conformance verify-bundle DIR [--public-key FILE]`: every finding, then the verdict. */

export interface VerifyIO {
  out: (text: string) => void;
  color: boolean;
}

const LABEL: Record<BundleFinding['level'], string> = { ok: 'ok  ', fail: 'FAIL', note: 'note' };

export function renderBundleVerdict(dir: string, verdict: BundleVerdict, color: boolean): string {
  type Style = Parameters<typeof styleText>[0];
  const paint = (style: Style, text: string): string =>
    color ? styleText(style, text, { validateStream: false }) : text;
  const style: Record<BundleFinding['level'], Style> = { ok: 'green', fail: ['bold', 'red'], note: 'yellow' };
  // Messages quote the bundle's content (ids, reasons, file names): printable, one line each.
  const lines = [
    `Bundle ${printable(dir)}`,
    ...verdict.findings.map(
      (x) => `  ${paint(style[x.level], LABEL[x.level])}  ${oneLine(printable(`${x.topic}: ${x.message}`), 400)}`,
    ),
  ];
  const fails = verdict.findings.filter((x) => x.level === 'fail').length;
  lines.push(
    '',
    !verdict.certifiable
      ? paint(['bold', 'red'], `NOT CERTIFIABLE: ${plural(fails, 'finding')} above`)
      : verdict.signerProven
        ? paint(['bold', 'green'], 'CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant')
        : // Not green: anyone can make such a bundle, from scratch, unsigned or with a key of their own.
          paint(
            ['bold', 'yellow'],
            `SIGNER NOT PROVEN: complete, matching its manifest, and conformant, but no key you trust signed it; give --public-key (exit ${ExitCode.SignerNotProven})`,
          ),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The path without trailing slashes (or "/."): `DIR/` resolves a symbolic link that `DIR` names
 * itself, and the verdict must not depend on how the operator typed the path.
 */
function bare(dir: string): string {
  const stripped = dir.replace(/(?:\/\.?)+$/, '');
  return stripped === '' ? dir : stripped;
}

/** `--trusted-keys FILE` (the programme's signers) and `--profile FILE` (the platform's certification profile). */
export interface VerifyExtras {
  trustedKeys?: string | undefined;
  profile?: string | undefined;
}

export async function verifyBundleCommand(
  dir: string,
  publicKey: string | undefined,
  io: VerifyIO,
  extras: VerifyExtras = {},
): Promise<number> {
  const GIVE = 'give the folder or the .tar.gz `run --bundle` wrote';
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(bare(dir));
  } catch {
    throw new UsageError(`verify-bundle ${dir}: no such ${isArchivePath(dir) ? 'file' : 'directory'}; ${GIVE}`);
  }
  // A bundle is the submitter's directory as it is: a link to one is refused like a link in one.
  if (stat.isSymbolicLink())
    throw new UsageError(`verify-bundle ${dir}: a symbolic link, refused; ${GIVE}, not a link to it`);
  const archive = isArchivePath(dir);
  if (archive ? !stat.isFile() : !stat.isDirectory())
    throw new UsageError(`verify-bundle ${dir}: not a ${archive ? 'regular file' : 'directory'}; ${GIVE}`);
  const trust = trustOf(publicKey, extras.trustedKeys);
  const profile = extras.profile === undefined ? undefined : loadProfile(extras.profile);
  const verdict = await withBundle(dir, 'verify-bundle', (unpacked) => verifyBundle(unpacked, trust, profile));
  io.out(renderBundleVerdict(dir, verdict, io.color));
  if (!verdict.certifiable) return ExitCode.NonConformant;
  return verdict.signerProven ? ExitCode.Conformant : ExitCode.SignerNotProven;
}
