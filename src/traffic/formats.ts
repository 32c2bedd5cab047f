/** `traffic`'s choices, apart from its code: the command line offers them without loading it (src/cli/main.ts). */

export const TRAFFIC_FORMATS = ['auto', 'har', 'ndjson', 'nginx', 'kong'] as const;
export type TrafficFormat = (typeof TRAFFIC_FORMATS)[number];
export const TRAFFIC_REPORTERS = ['junit', 'json', 'html', 'sarif', 'github-summary'] as const;
export type TrafficReporter = (typeof TRAFFIC_REPORTERS)[number];
/** The SARIF file's name in the reports directory, beside the run's own report files. */
export const TRAFFIC_SARIF_FILE = 'traffic.sarif';
