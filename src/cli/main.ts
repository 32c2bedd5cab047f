import yargs, { type Argv, type Options } from 'yargs';
import { CHECKS } from '../catalogue/index.js';
import { SUITES } from '../catalogue/types.js';
import {
  RUN_OPTIONS,
  RUN_OPTION_KINDS,
  flagName,
  loadConfigFile,
  resolveRunOptions,
  type RunOptionSpec,
} from '../config/options.js';
import { envName, envSwitch, optionsFromEnv } from '../core/environment.js';
import { TRAFFIC_FORMATS, TRAFFIC_REPORTERS } from '../traffic/formats.js';
import { HarnessExit, UsageError } from '../core/errors.js';
import {
  COMPARE_EXIT_CODES_HELP,
  DIFF_EXIT_CODES_HELP,
  EXIT_CODES_HELP,
  ExitCode,
  LINT_EXIT_CODES_HELP,
  TRAFFIC_EXIT_CODES_HELP,
  MATRIX_EXIT_CODES_HELP,
  VERIFY_EXIT_CODES_HELP,
} from '../core/exit-codes.js';
import { redactor } from '../core/redact.js';
import { safeOutput } from '../core/console-safety.js';
import { TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import { filterCatalogue, renderCatalogue } from './list.js';
import { normalizeYesNoFlags } from './yes-no-flags.js';
import { closest } from '../core/suggest.js';
import type { CliIO } from './io.js';

/**
 * The command line: `run` (the default), `list` and `serve`. Every option of `run` and `serve`
 * can also come from a `CARRIER_<NAME>` environment variable, and those of `run` from a JSON
 * `--config` file; precedence is argv > environment > config file > default. A command reads only
 * the variables of its own options: the command line is strict, the environment is shared with
 * everything else the user runs. Errors end with one line and a documented exit code.
 */

/** The long options of `run`, in camelCase as the config schema names them. */
const RUN_OPTION_KEYS = Object.keys(RUN_OPTION_KINDS) as (keyof typeof RUN_OPTION_KINDS)[];

/** The numeric options of `run`, which must be followed by their value (`--timeout` alone is no default). */
const RUN_NUMBER_FLAGS = RUN_OPTION_KEYS.filter((k) => RUN_OPTION_KINDS[k] === 'number').map((k) =>
  flagName(k).slice(2),
);

/** The options that must be followed by a file (requiresArg), as yargs names them. */
const FILE_FLAGS = ['profile', 'trusted-keys'];

/** Every yes/no flag of every command, for normalizeYesNoFlags. */
// Not `profile`: `--profile FILE` is a certification profile (issue 31); CARRIER_PROFILE=1 times a run.
const YES_NO_FLAGS = [...RUN_OPTION_KEYS.filter((k) => RUN_OPTION_KINDS[k] === 'boolean'), 'json', 'debug', 'faults'];

/** A table entry as yargs declares it: its type from its kind (a map, a config file's object, has none). */
function yargsOptionOf(spec: RunOptionSpec): Options {
  const { kind, ...shown } = spec;
  const type: Options['type'] =
    kind === 'number' ? 'number' : kind === 'boolean' ? 'boolean' : kind === 'map' ? undefined : 'string';
  return { ...(type ? { type } : {}), ...(kind === 'list' || kind === 'lines' ? { array: true } : {}), ...shown };
}

function runOptions(y: Argv): Argv {
  // Every run option from its one table (src/config/options.ts RUN_OPTIONS), in --help's order.
  for (const [key, spec] of Object.entries(RUN_OPTIONS)) y.option(flagName(key).slice(2), yargsOptionOf(spec));
  return (
    y
      .option('profile', {
        type: 'string',
        requiresArg: true,
        group: 'Certification:',
        describe:
          "The platform's certification profile (JSON or YAML): sets the options it names, refuses those that contradict it and an --openapi document it does not name; the bundle records it",
      })
      .option('config', {
        type: 'string',
        group: 'Options:',
        describe:
          'JSON file of options ({"baseUrl": ..., "pagedPath": [...]}), or YAML if it ends in .yaml or .yml; paths in it are relative to it',
      })
      .requiresArg(RUN_NUMBER_FLAGS)
      // Here only: the top-level help shows the default command's, so it appears there once too.
      .epilogue(`${EXIT_CODES_HELP}\n${COMPARE_EXIT_CODES_HELP}`)
  );
}

/** The options of `keys` that argv gives (yargs sets no defaults for them: the sources decide). */
function pick(argv: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of keys) if (argv[key] !== undefined) raw[key] = argv[key];
  return raw;
}

/** The --config file (or CARRIER_CONFIG), read and checked. */
function configFileOf(argv: Record<string, unknown>): Record<string, unknown> | undefined {
  const path = typeof argv.config === 'string' ? argv.config : process.env[envName('config')];
  if (path === undefined) return undefined;
  if (path === '') throw new UsageError('--config: give the path of a JSON (or .yaml) file of options');
  return loadConfigFile(path);
}

/** True when the secret was typed on the command line, where `ps` and shell history show it. */
function secretOnCommandLine(args: readonly string[]): boolean {
  return args.some((a) => /^--client-?[sS]ecret(=|$)/.test(a));
}

/**
 * yargs names an unknown option twice and without its dashes (`bogus-option, bogusOption`): name
 * it once, as it was typed (`--bogus-option`), with the known option it is a typo of, if any; a
 * stray word stays a word.
 */
function tidyYargsMessage(message: string, args: readonly string[], known: readonly string[] = []): string {
  // requiresArg's message: `--timeout` given without its value.
  const bare = /^Not enough arguments following: (.+)$/.exec(message);
  if (bare?.[1]) return `--${bare[1]}: needs ${FILE_FLAGS.includes(bare[1]) ? 'a file' : 'a number'} after it`;
  const m = /^(Unknown arguments?): (.*)$/.exec(message);
  if (!m?.[2]) return message;
  const names = m[2].split(', ');
  const kept = names.filter(
    (n) => !(/[A-Z]/.test(n) && names.includes(n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`))),
  );
  const typed = (n: string): string => {
    const flag = `${n.length === 1 ? '-' : '--'}${n}`;
    return args.some((a) => a === flag || a.startsWith(`${flag}=`)) ? flag : n;
  };
  const suggested = (n: string): string => {
    const shown = typed(n);
    // A word where the command goes (`carrier-conformance rnu`) is a typo of a command, if any.
    const near = shown.startsWith('--')
      ? closest(shown, known)
      : shown === args[0]
        ? closest(shown, COMMANDS)
        : undefined;
    return near === undefined ? shown : `${shown} (did you mean ${near}?)`;
  };
  return `${kept.length === 1 ? 'Unknown argument' : 'Unknown arguments'}: ${kept.map(suggested).join(', ')}`;
}

/**
 * The long options yargs knows where it failed (the command's, and the global ones), as typed;
 * hidden ones aside. `getOptions` is not in yargs's typings: without it, no suggestion.
 */
function knownFlags(y: unknown): string[] {
  const getOptions = (
    y as { getOptions?: () => { key?: Record<string, unknown>; hiddenOptions?: string[] } } | undefined
  )?.getOptions;
  if (typeof getOptions !== 'function') return [];
  const options = getOptions.call(y);
  const hidden = new Set(options.hiddenOptions ?? []);
  return Object.keys(options.key ?? {})
    .filter((k) => k.length > 1 && !/[A-Z]/.test(k) && !hidden.has(k))
    .map((k) => `--${k}`);
}

/** The commands, as typed (the yargs commands below). */
const COMMANDS = ['run', 'list', 'diff', 'matrix', 'verify-bundle', 'combine-bundles', 'lint', 'serve'];

// Where the CLI's own tests and other modules have always found it.
export { closest };

export type { CliIO };

/**
 * Runs the command line. `interrupt` (Ctrl-C, SIGTERM) stops a run with a partial report and
 * exit 3, and stops `serve`.
 */
export async function main(
  given: readonly string[],
  unsafeIO: CliIO,
  interrupt: AbortSignal = new AbortController().signal,
): Promise<number> {
  // Every command prints through the one path that neutralises what the harness did not write.
  const io = safeOutput(unsafeIO);
  let exitCode: number = ExitCode.Conformant;
  // `run` is the default command: named, yargs renders and caches the whole help text before
  // the run starts (~80 ms of start-up); as the default it does not. Only options may follow
  // (`run list` stays an error), and `run --help` keeps the run command's own help.
  const asDefault =
    given[0] === 'run' &&
    (given[1] === undefined || given[1].startsWith('-')) &&
    !given.some((a) => a === '--help' || a === '-h');
  const args = asDefault ? given.slice(1) : given;
  let normalized: string[];
  try {
    normalized = normalizeYesNoFlags(args, YES_NO_FLAGS);
  } catch (err) {
    if (!(err instanceof HarnessExit)) throw err;
    io.err(`${TOOL_NAME}: ${redactor.redact(err.message)}`);
    return err.exitCode;
  }
  const parser = yargs(normalized)
    .scriptName(TOOL_NAME)
    .version(TOOL_VERSION)
    .help('help')
    .alias('help', 'h')
    // Read from CARRIER_DEBUG directly (before parsing); declared so that the flag is known too.
    // Timing a run is CARRIER_PROFILE=1 only: `--profile FILE` is a certification profile.
    .option('debug', {
      type: 'boolean',
      hidden: true,
      describe: 'On an internal error, print its stack (CARRIER_DEBUG=1)',
    })
    .usage('$0 [run] [options]\n\nChecks that a deployment of the Carrier-Platform API conforms to its specification.')
    .command(['run', '$0'], 'Run the conformance battery (the default command)', runOptions, async (argv) => {
      if (secretOnCommandLine(args))
        io.err(
          'warning: --client-secret on the command line is visible to other users and in shell history; prefer CARRIER_CLIENT_SECRET',
        );
      // A second secret is new: it has never been given on the command line, so it never will be (issue 39).
      if (args.some((a) => /^--second-?[cC]lient-?[sS]ecret(=|$)/.test(a)))
        throw new UsageError(
          "--second-client-secret: the second client's secret is read from CARRIER_SECOND_CLIENT_SECRET, a --config file or --second-client-secret-file, never the command line (other users see it there)",
        );
      if (args.some((a) => /^--key-?[pP]assphrase(=|$)/.test(a)))
        io.err(
          'warning: --key-passphrase on the command line is visible to other users and in shell history; prefer CARRIER_KEY_PASSPHRASE or --key-passphrase-file',
        );
      const config = configFileOf(argv);
      const sources = {
        argv: pick(argv, RUN_OPTION_KEYS),
        env: optionsFromEnv(RUN_OPTION_KINDS),
        ...(config ? { config } : {}),
      };
      const resolved = resolveRunOptions(sources);
      const certification = typeof argv.profile === 'string' ? await import('../certification/apply.js') : undefined;
      const certified =
        certification && typeof argv.profile === 'string'
          ? certification.applyProfile(argv.profile, resolved, sources)
          : undefined;
      if (certification && certified)
        await certification.refuseTargetsTheProfileDisallows(
          certified.profile.file,
          certified.loaded,
          certified.options,
        );
      const { runConformance } = await import('../runner/run.js');
      exitCode = (await runConformance(certified?.options ?? resolved, io, interrupt, certified?.profile)).exitCode;
    })
    .command(
      'list',
      'Print the check catalogue: id, suite, level, spec reference, title',
      (y) =>
        y
          .option('suite', {
            type: 'string',
            array: true,
            describe: `Only the checks of these suites (repeatable): ${SUITES.join(', ')}`,
          })
          .option('level', {
            type: 'string',
            array: true,
            describe: 'Only the checks of these levels (repeatable): MUST, SHOULD',
          })
          .option('json', {
            type: 'boolean',
            describe: "Print them as JSON: each check's id, suite, level, title, references (refs) and notes",
          })
          // `list` takes its options from the command line only: an exported CARRIER_SUITE is a run's.
          .env(false),
      (argv) => {
        const checks = filterCatalogue(CHECKS, argv.suite ?? [], argv.level ?? []);
        io.out(argv.json ? `${JSON.stringify(checks, null, 2)}\n` : renderCatalogue(checks));
      },
    )
    .command(
      'diff <old> <new>',
      'Compare two report.json files: what regressed, what was fixed, what changed',
      (y) =>
        y
          .positional('old', {
            type: 'string',
            demandOption: true,
            describe: "The earlier report.json (or its directory), e.g. the last release's",
          })
          .positional('new', {
            type: 'string',
            demandOption: true,
            describe: 'The later report.json (or its directory)',
          })
          .option('markdown', {
            type: 'string',
            describe:
              'Also write the diff as Markdown to this file (it is appended to $GITHUB_STEP_SUMMARY when that is set)',
          })
          .env(false)
          .epilogue(DIFF_EXIT_CODES_HELP),
      async (argv) => {
        const { diffCommand } = await import('../compare/command.js');
        exitCode = await diffCommand(argv.old, argv.new, io, argv.markdown);
      },
    )
    .command(
      'matrix <reports..>',
      "Combine many targets' report.json files into one page (checks x targets), a JSON summary and a badge per target",
      (y) =>
        y
          .positional('reports', {
            type: 'string',
            array: true,
            demandOption: true,
            describe: "Each target's report.json, or the directory holding it",
          })
          .option('out', {
            type: 'string',
            default: 'matrix',
            describe: 'Directory for matrix.html, matrix.json and badges/<target>.json',
          })
          .option('public-key', {
            type: 'string',
            requiresArg: true,
            describe:
              "Verify the bundles among the inputs as verify-bundle does, against this signer's Ed25519 public key (PEM)",
          })
          .option('trusted-keys', {
            type: 'string',
            requiresArg: true,
            describe: "Verify the bundles against a file of the programme's signers; instead of --public-key",
          })
          .option('profile', {
            type: 'string',
            requiresArg: true,
            describe: "Verify the bundles against the platform's certification profile",
          })
          .env(false)
          .epilogue(MATRIX_EXIT_CODES_HELP),
      async (argv) => {
        const { matrixCommand } = await import('../matrix/command.js');
        exitCode = await matrixCommand(argv.reports, argv.out, io, {
          publicKey: argv['public-key'],
          trustedKeys: argv['trusted-keys'],
          profile: argv.profile,
        });
      },
    )
    .command(
      'verify-bundle <dir>',
      'Check a certification bundle: manifest, signature, current catalogue, every MUST check passed, JUnit and JSON agreeing',
      (y) =>
        y
          .positional('dir', {
            type: 'string',
            demandOption: true,
            describe: 'The folder, or the .tar.gz, `run --bundle` wrote',
          })
          .option('public-key', {
            type: 'string',
            describe:
              "The signer's Ed25519 public key (PEM) you trust; without it a signature proves nothing about who signed",
          })
          .option('trusted-keys', {
            type: 'string',
            requiresArg: true,
            describe:
              "A file of the programme's signers: Ed25519 public keys (PEM), each optionally named by a '# name' line above it; instead of --public-key",
          })
          .option('profile', {
            type: 'string',
            requiresArg: true,
            describe:
              "The platform's certification profile: the bundle must have been made under exactly this file, and prove each of its items",
          })
          .env(false)
          .epilogue(VERIFY_EXIT_CODES_HELP),
      async (argv) => {
        const { verifyBundleCommand } = await import('../bundle/command.js');
        exitCode = await verifyBundleCommand(argv.dir, argv['public-key'], io, {
          trustedKeys: argv['trusted-keys'],
          profile: argv.profile,
        });
      },
    )
    .command(
      'combine-bundles <main> <expiry>',
      "Combine a main run's bundle and an expiry job's (run --suite expiry) into one signed bundle: the two-job expiry proof",
      (y) =>
        y
          .positional('main', {
            type: 'string',
            demandOption: true,
            describe: 'The bundle of the main run (run --bundle): its folder or .tar.gz',
          })
          .positional('expiry', {
            type: 'string',
            demandOption: true,
            describe:
              'The bundle of the expiry job against the same target (run --suite expiry --bundle): its folder or .tar.gz',
          })
          .option('output', {
            type: 'string',
            requiresArg: true,
            demandOption: true,
            describe:
              'A new or empty directory for the combined bundle, or an earlier bundle (which is replaced); a name ending .tar.gz writes it as one archive',
          })
          .option('sign-key', {
            type: 'string',
            requiresArg: true,
            demandOption: true,
            describe:
              'Ed25519 private key (PEM) that signs the combined bundle; the parts must be signed with it too, unless --public-key or --trusted-keys says whose they may be',
          })
          .option('public-key', {
            type: 'string',
            requiresArg: true,
            describe: 'The key the parts must be signed with',
          })
          .option('trusted-keys', {
            type: 'string',
            requiresArg: true,
            describe: "A file of the programme's signers the parts may be signed by",
          })
          .env(false)
          .epilogue(
            "Exit codes:\n  0  the combined bundle was written (verify-bundle judges it)\n  1  the bundles do not combine: a part invalid or not signed by a trusted key, another target, or more than 24 h apart (each problem printed)\n  2  usage error: a missing bundle, a bad key, an --output holding files that are not a bundle's",
          ),
      async (argv) => {
        const { combineBundlesCommand } = await import('../bundle/combine.js');
        exitCode = await combineBundlesCommand(
          argv.main,
          argv.expiry,
          {
            output: argv.output,
            signKey: argv['sign-key'],
            publicKey: argv['public-key'],
            trustedKeys: argv['trusted-keys'],
          },
          io,
        );
      },
    )
    .command(
      'lint <files..>',
      "Check OpenAPI documents against the platform's conventions (version header, bearer security, token endpoint, tenant paths, paging, nulls)",
      (y) =>
        y
          .positional('files', {
            type: 'string',
            array: true,
            demandOption: true,
            describe: 'Swagger 2.0 or OpenAPI 3.0, 3.1 or 3.2 documents (YAML or JSON), read as --openapi reads one',
          })
          .option('format', {
            type: 'string',
            choices: ['console', 'stylish', 'github-actions', 'junit', 'sarif', 'json'],
            default: 'console',
            describe:
              'console (grouped by rule), stylish (a line per finding, by file), github-actions (annotations on the pull request), junit (a test case per rule), sarif (2.1.0, for code scanning) or json',
          })
          .option('output', {
            type: 'string',
            describe: 'Write the report to this file (the console summary still goes to stdout)',
          })
          .option('strict', { type: 'boolean', describe: 'SHOULD findings fail too, instead of warning' })
          .option('waivers', {
            type: 'string',
            describe:
              'A JSON file of findings the team accepts, each with its reason: {"waivers": [{"rule", "file", "pointer", "reason"}]}; reported as waived, failing nothing',
          })
          .option('openapi-root', {
            type: 'string',
            describe: "The folder the documents' $refs may read files in (default: each document's own folder)",
          })
          .env(false)
          .epilogue(LINT_EXIT_CODES_HELP),
      async (argv) => {
        const { lintCommand } = await import('../lint/command.js');
        exitCode = await lintCommand(
          argv.files,
          {
            format: argv.format as 'console',
            output: argv.output,
            strict: argv.strict === true,
            root: argv['openapi-root'],
            waivers: argv.waivers,
          },
          io,
        );
      },
    )
    .command(
      'traffic <captures..>',
      'Judge captured traffic (HAR, NDJSON, Kong or nginx JSON logs) by the passive checks, sending no request',
      (y) =>
        y
          .positional('captures', {
            type: 'string',
            array: true,
            demandOption: true,
            describe: 'HAR 1.2 files, NDJSON captures of exchanges, Kong or nginx JSON access logs (docs/traffic.md)',
          })
          .option('format', {
            type: 'string',
            choices: [...TRAFFIC_FORMATS],
            default: 'auto',
            describe:
              'What the captures are; auto: a .har name or a JSON document is a HAR, else the kind of the first line',
          })
          .option('reports-dir', {
            type: 'string',
            describe: 'Where reports are written [default: $CARRIER_REPORTS_DIR, else reports]',
          })
          .option('reporter', {
            type: 'string',
            array: true,
            describe: `Reports to write (repeatable): ${TRAFFIC_REPORTERS.join(', ')}, all [default: all; github-summary only when GITHUB_STEP_SUMMARY is set]`,
          })
          .option('strict', {
            type: 'boolean',
            describe: 'SHOULD checks that fail fail the run too, instead of warning',
          })
          .option('deadline', {
            type: 'string',
            requiresArg: true,
            describe: 'Seconds: judging stops there, and the reports say how far it got (exit 3)',
          })
          .option('openapi', {
            type: 'string',
            requiresArg: true,
            describe:
              "The API's OpenAPI document: its paths name the tenant endpoints (lists, wrapped lists), its schemas judge their bodies (RESOURCE-SCHEMA, RESOURCE-FIELDS-PRESENT)",
          })
          .option('openapi-root', {
            type: 'string',
            requiresArg: true,
            describe: "The folder the document's $refs may read files in (default: its own folder)",
          })
          .env(false)
          .epilogue(TRAFFIC_EXIT_CODES_HELP),
      async (argv) => {
        const deadline = argv.deadline === undefined ? undefined : Number(argv.deadline);
        if (deadline !== undefined && !(Number.isFinite(deadline) && deadline > 0))
          throw new UsageError(
            `--deadline ${JSON.stringify(argv.deadline)}: give a number of seconds above 0, e.g. --deadline 600`,
          );
        const { trafficCommand } = await import('../traffic/command.js');
        exitCode = await trafficCommand(
          argv.captures,
          {
            format: argv.format as 'auto',
            reportsDir: argv['reports-dir'] ?? (process.env.CARRIER_REPORTS_DIR || 'reports'),
            reporter: argv.reporter ?? [],
            strict: argv.strict === true,
            deadline,
            openapi: argv.openapi,
            openapiRoot: argv['openapi-root'],
            // The run's document thread: --deadline and signals terminate a document that parses too long.
            loadDocument: async (file, root, signal) =>
              (await import('../runner/document-thread.js')).loadOpenApiInThread(file, { root, signal }),
          },
          io,
          interrupt,
        );
      },
    )
    .command(
      'serve',
      'Run the embedded reference server in the foreground',
      (y) =>
        y
          .option('port', {
            type: 'number',
            requiresArg: true,
            describe: 'Port to listen on (0: any free port) [default: 8080]',
          })
          .option('host', { type: 'string', describe: 'Address to listen on [default: 127.0.0.1]' })
          .option('token-ttl', {
            type: 'number',
            requiresArg: true,
            describe: 'Token lifetime (expires_in) in seconds [default: 5]',
          })
          .option('client-id', { type: 'string', describe: 'Client id to accept (default: conformance-client)' })
          .option('client-secret', {
            type: 'string',
            describe:
              'Client secret to accept; prefer CARRIER_CLIENT_SECRET (default: the documented reference secret)',
          })
          .option('second-client-id', {
            type: 'string',
            describe:
              "The second client's id, of the tenant the first may not access; its secret: CARRIER_SECOND_CLIENT_SECRET (default: conformance-second-client and the documented reference secret)",
          })
          .option('fault', {
            type: 'string',
            array: true,
            describe: 'Break one rule (repeatable); `serve --faults` lists them',
          })
          .option('variant', {
            type: 'string',
            array: true,
            describe: 'Behave unusually but conformantly (repeatable); `serve --faults` lists them',
          })
          .option('faults', { type: 'boolean', describe: 'Print every fault and variant, one line each, and exit' })
          .option('shipments', {
            type: 'number',
            requiresArg: true,
            describe: 'Shipments of the main tenant [default: 23]',
          }),
      async (argv) => {
        const { serve, resolveServeOptions, renderAlterations, SERVE_OPTION_KINDS } = await import('./serve.js');
        if (argv.faults === true) {
          io.out(renderAlterations());
          return;
        }
        const options = resolveServeOptions(
          pick(argv, Object.keys(SERVE_OPTION_KINDS)),
          optionsFromEnv(SERVE_OPTION_KINDS),
        );
        exitCode = await serve(options, io, interrupt);
      },
    )
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false)
    .fail((message: string | undefined, error: Error | undefined) => {
      if (error instanceof HarnessExit) throw error;
      // `parser` is this very instance: the handler runs while it parses, in the failing command's context.
      throw new UsageError(
        `${tidyYargsMessage(message ?? error?.message ?? 'invalid usage', normalized, knownFlags(parser))} (see --help)`,
      );
    });
  let output = '';
  try {
    await parser.parseAsync(normalized, {}, (_err: unknown, _argv: unknown, text: string) => {
      output = text;
    });
  } catch (err) {
    if (err instanceof HarnessExit) {
      io.err(`${TOOL_NAME}: ${redactor.redact(err.message)}`);
      return err.exitCode;
    }
    // A harness bug: one line, no stack trace (CARRIER_DEBUG=1 shows it), and the run is incomplete.
    io.err(
      `${TOOL_NAME}: internal error: ${redactor.redact(err instanceof Error ? err.message : String(err))} (please report it; CARRIER_DEBUG=1 shows details)`,
    );
    if (envSwitch('CARRIER_DEBUG') && err instanceof Error) io.err(redactor.redact(err.stack ?? ''));
    return ExitCode.Incomplete;
  }
  if (output) io.out(`${output}\n`);
  return exitCode;
}
