// The one place that knows the spec's enumerations and limits.

export const LOCATIONS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'ca-central-1',
  'sa-east-1',
  'eu-west-1',
  'eu-central-1',
  'eu-west-2',
  'eu-west-3',
  'eu-north-1',
  'eu-south-1',
  'me-south-1',
  'ap-southeast-1',
  'ap-northeast-1',
  'ap-east-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-south-1',
  'af-south-1',
] as const;
export type Location = (typeof LOCATIONS)[number];

export const LOCATION_NAMES: Record<Location, string> = {
  'us-east-1': 'N. Virginia',
  'us-east-2': 'Ohio',
  'us-west-1': 'N. California',
  'us-west-2': 'Oregon',
  'ca-central-1': 'Canada',
  'sa-east-1': 'São Paulo',
  'eu-west-1': 'Ireland',
  'eu-central-1': 'Frankfurt',
  'eu-west-2': 'London',
  'eu-west-3': 'Paris',
  'eu-north-1': 'Stockholm',
  'eu-south-1': 'Milan',
  'me-south-1': 'Bahrain',
  'ap-southeast-1': 'Singapore',
  'ap-northeast-1': 'Tokyo',
  'ap-east-1': 'Hong Kong',
  'ap-southeast-2': 'Sydney',
  'ap-southeast-3': 'Jakarta',
  'ap-northeast-2': 'Seoul',
  'ap-northeast-3': 'Osaka',
  'ap-south-1': 'Mumbai',
  'af-south-1': 'Cape Town',
};

export const RUNTIME_IDS = ['2026.04', '2025.04', '2024.09', '2024.02', '2023.09', '2023.02', '2022.10'] as const;
/** Every account's default runtime (the newest, CURRENT one): what checks without runtimeId run under. */
export const DEFAULT_RUNTIME_ID = '2026.04';
/** Browser, multi-step and Playwright checks (minutes, as the public API's enumeration). */
export const BROWSER_FREQUENCIES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
/** How long a run of these may take before it is stopped. */
export const RUNTIME_CHECK_TIMEOUT_MS: Record<string, number> = { BROWSER: 240_000, MULTI_STEP: 240_000, PLAYWRIGHT: 600_000 };

export const CHECK_TYPES = ['AGENTIC', 'API', 'BROWSER', 'HEARTBEAT', 'ICMP', 'MULTI_STEP', 'TCP', 'PLAYWRIGHT', 'URL', 'DNS'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export const TCP_FREQUENCIES = [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
export const SUB_MINUTE_OFFSETS = [10, 20, 30] as const;

export const DESCRIPTION_MAX = 500;
export const TCP_RESPONSE_TIME_MAX = 5000;
export const TCP_DEGRADED_DEFAULT = 3000;
export const TCP_MAX_DEFAULT = 5000;

/** URL monitors: the public API's limit, since the spec names none. */
export const URL_RESPONSE_TIME_MAX = 45_000;
export const URL_ASSERTION_COMPARISONS = ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'GREATER_THAN'] as const;

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'HTTPS'] as const;
/** Every comparison the CLI's assertion builders can produce, for sources that carry JSON. */
export const JSON_ASSERTION_COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'HAS_KEY',
  'NOT_HAS_KEY',
  'HAS_VALUE',
  'NOT_HAS_VALUE',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_NULL',
  'NOT_NULL',
] as const;

export const PAGE_LIMIT_MAX = 100;
/** Pages past this hold nothing any account has (and the offset must fit the database's integers). */
export const PAGE_MAX = 1_000_000;
export const RESULTS_WINDOW_SECONDS = 6 * 3600;

/** A due run nobody has leased within this window is dropped rather than run late. */
export const UNCLAIMED_RUN_TTL_MS = 6 * 60 * 1000;

export const TCP_ASSERTION_SOURCES = ['RESPONSE_DATA', 'TEXT_BODY', 'RESPONSE_TIME'] as const;
/** ICMP assertions compare latencies and JSON values; there are no keys to look for. */
export const ICMP_ASSERTION_COMPARISONS = JSON_ASSERTION_COMPARISONS.filter((c) => !c.includes('HAS_'));

export const ASSERTION_COMPARISONS = [
  'EQUALS',
  'NOT_EQUALS',
  'CONTAINS',
  'NOT_CONTAINS',
  'IS_EMPTY',
  'NOT_EMPTY',
  'GREATER_THAN',
  'LESS_THAN',
] as const;

/** Private-location slugs may not look like data-center ids (same rule as the public API). */
export const SLUG_PATTERN = '^((?!((us(-gov)?|ap|ca|cn|eu|sa|af|me)-(central|(north|south)?(east|west)?)-\\d+))[a-zA-Z0-9-]{1,30})$';

/** Largest artifact (screenshot, trace, video) an agent may upload: the spec's 150 MB. */
export const ARTIFACT_MAX_BYTES = 150 * 1024 * 1024;
