import { lstatSync } from 'node:fs';
import { styleText } from 'node:util';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { oneLine, plural, printable } from '../report/format.js';
import { loadPublicKey } from './keys.js';
import { verifyBundle, type BundleFinding, type BundleVerdict } from './verify.js';

/** `carrier-conformance verify-bundle DIR [--public-key FILE]`: every finding, then the verdict. */

export interface VerifyIO {
  out: (text: string) => void;
  color: boolean;
}

const LABEL: Record<BundleFinding['level'], string> = { ok: 'ok  ', fail: 'FAIL', note: 'note' };

export function renderBundleVerdict(dir: string, verdict: BundleVerdict, keyGiven: boolean, color: boolean): string {
  type Style = Parameters<typeof styleText>[0];
  const paint = (style: Style, text: string): string => (color ? styleText(style, text, { validateStream: false }) : text);
  const style: Record<BundleFinding['level'], Style> = { ok: 'green', fail: ['bold', 'red'], note: 'yellow' };
  // Messages quote the bundle's content (ids, reasons, file names): printable, one line each.
  const lines = [`Bundle ${printable(dir)}`, ...verdict.findings.map((x) => `  ${paint(style[x.level], LABEL[x.level])}  ${oneLine(printable(`${x.topic}: ${x.message}`), 400)}`)];
  const fails = verdict.findings.filter((x) => x.level === 'fail').length;
  lines.push(
    '',
    verdict.certifiable
      ? paint(['bold', 'green'], keyGiven ? 'CERTIFIABLE: complete, untampered (signed by the key you gave) and conformant' : 'CERTIFIABLE: complete, matching its manifest, and conformant; who made it is not proven without --public-key')
      : paint(['bold', 'red'], `NOT CERTIFIABLE: ${plural(fails, 'finding')} above`),
  );
  return `${lines.join('\n')}\n`;
}

export function verifyBundleCommand(dir: string, publicKey: string | undefined, io: VerifyIO): number {
  let isDir: boolean;
  try {
    isDir = lstatSync(dir).isDirectory();
  } catch {
    throw new UsageError(`verify-bundle ${dir}: no such directory; give the directory \`run --bundle\` wrote`);
  }
  if (!isDir) throw new UsageError(`verify-bundle ${dir}: not a directory; give the directory \`run --bundle\` wrote`);
  const key = publicKey === undefined ? undefined : loadPublicKey(publicKey);
  const verdict = verifyBundle(dir, key);
  io.out(renderBundleVerdict(dir, verdict, key !== undefined, io.color));
  return verdict.certifiable ? ExitCode.Conformant : ExitCode.NonConformant;
}
