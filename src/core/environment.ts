/**
 * What the harness reads from its environment besides argv: yes/no settings, whether it runs in
 * CI, and the `CARRIER_<NAME>` variables a command takes its options from.
 *
 * One vocabulary for every yes/no setting, wherever it is written (a flag's `=value`, a
 * `CARRIER_*` variable, a config file): 1/0, true/false, yes/no, on/off in any case. Anything
 * else is refused, never read as "off": `CARRIER_STRICT=TRUE` must not run a lenient gate.
 */

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/** The spellings a yes/no setting accepts, for error messages. */
export const BOOLEAN_SPELLINGS = '1/0, true/false, yes/no or on/off';

/** `true` or `false` for a yes/no word in any case (surrounding spaces ignored); undefined for anything else. */
export function parseBooleanWord(value: string): boolean | undefined {
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** A debugging switch such as CARRIER_DEBUG: on for a yes word, off for anything else (it changes no verdict). */
export function envSwitch(name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[name];
  return value !== undefined && parseBooleanWord(value) === true;
}

/**
 * Variables that CI systems set in every job. `CI` is set by GitHub Actions, GitLab, CircleCI,
 * Buildkite, Bitbucket, Travis and most others; Jenkins, Azure Pipelines and TeamCity set only
 * their own.
 */
const CI_MARKERS = ['CI', 'JENKINS_URL', 'TF_BUILD', 'TEAMCITY_VERSION'] as const;

/**
 * The variable that says this process runs in a CI job (`CI=true`), or undefined. A marker set to
 * a "no" word (`CI=false`, `CI=0`) or to nothing does not count: that is how a job opts out.
 */
export function ciMarker(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of CI_MARKERS) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '' && parseBooleanWord(value) !== false) return `${name}=${value}`;
  }
  return undefined;
}

/** How a command option is written on the command line and read from the environment. */
/**
 * `lines` is a list whose items may hold spaces and commas (a header `X-Api-Key: a, b`, a token
 * parameter `scope=read write`): its variable gives one item per line.
 */
export type OptionKind = 'string' | 'number' | 'boolean' | 'list' | 'lines' | 'map';

/** `baseUrl` → `CARRIER_BASE_URL`: the variable an option is read from. */
export function envName(key: string): string {
  return `CARRIER_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/**
 * The options of one command that are set in the environment, typed as the command line would
 * type them, keyed by option. Only the command's own options are read: any other `CARRIER_*`
 * variable (another command's, or CARRIER_ACCESS_TOKEN, which the reports' curl commands use) is
 * none of its business. A value that is not of the option's kind is passed on as it is, for the
 * option's validation to refuse it, naming the variable.
 */
export function optionsFromEnv(
  kinds: Readonly<Record<string, OptionKind>>,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries(kinds)) {
    const value = env[envName(key)];
    if (value === undefined) continue;
    options[key] = typed(value, kind);
  }
  return options;
}

function typed(value: string, kind: OptionKind): unknown {
  switch (kind) {
    case 'string':
      return value;
    case 'number':
      return /^\s*-?(?:\d+\.?\d*|\.\d+)\s*$/.test(value) ? Number(value) : value;
    case 'boolean':
      return parseBooleanWord(value) ?? value;
    case 'list':
      // CARRIER_PAGED_PATH="shipments orders" or "shipments,orders": neither a path, a suite, a
      // check id nor a reporter name contains a space or a comma.
      return value.split(/[\s,]+/).filter((v) => v !== '');
    case 'lines':
      // CARRIER_HEADER=$'X-Api-Key: …\nX-Tenant: …': one item per line, blank lines ignored.
      return value.split(/\r?\n/).filter((v) => v.trim() !== '');
    case 'map':
      // CARRIER_PARAMETERS='{"invoiceId": "…"}': a JSON object, as in a config file.
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
  }
}
