// One list for both backends, written in PostgreSQL's DDL; sqliteDdl() maps the few types and
// defaults SQLite spells differently. Append-only: a released migration is never edited, a change
// is a new entry. Epoch-millisecond columns are double precision so both drivers hand back plain
// numbers.

export const MIGRATIONS: string[] = [
  `
CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  runtime_id text NOT NULL DEFAULT '2026.04',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE private_locations (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  slug_name text NOT NULL,
  icon text NOT NULL DEFAULT 'location',
  proxy_url text,
  last_seen_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  UNIQUE (account_id, slug_name)
);
CREATE TABLE private_location_keys (
  id text PRIMARY KEY,
  private_location_id text NOT NULL REFERENCES private_locations(id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  masked_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE TABLE checks (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_type text NOT NULL,
  name text NOT NULL,
  activated boolean NOT NULL,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX checks_account ON checks (account_id, created_at);
-- Written on every run: kept apart from the wide checks row so each write stays small.
CREATE TABLE check_schedule (
  check_id text PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
  next_due_at double precision NOT NULL
);
CREATE TABLE jobs (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  check_id text NOT NULL,
  location text NOT NULL,
  due_at double precision NOT NULL,
  queue_key text NOT NULL,
  leased_by text,
  lease_expires_at double precision
);
CREATE INDEX jobs_check ON jobs (check_id);
CREATE TABLE check_results (
  id text PRIMARY KEY,
  job_id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  check_id text NOT NULL,
  check_type text NOT NULL,
  name text NOT NULL,
  run_location text NOT NULL,
  result_type text NOT NULL DEFAULT 'FINAL',
  has_failures boolean NOT NULL,
  has_errors boolean NOT NULL,
  is_degraded boolean,
  over_max_response_time boolean,
  response_time double precision NOT NULL,
  started_at timestamptz NOT NULL,
  stopped_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  check_run_id double precision NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  detail jsonb NOT NULL,
  session_id text
);
CREATE INDEX check_results_session ON check_results (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX check_results_check_time ON check_results (check_id, created_at DESC);
CREATE TABLE check_statuses (
  check_id text PRIMARY KEY,
  account_id text NOT NULL,
  name text NOT NULL,
  has_failures boolean NOT NULL,
  has_errors boolean NOT NULL,
  is_degraded boolean NOT NULL,
  longest_run double precision,
  shortest_run double precision,
  last_run_location text,
  last_check_run_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE TABLE variables (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key text NOT NULL,
  value text NOT NULL,
  locked boolean NOT NULL DEFAULT false,
  secret boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  PRIMARY KEY (account_id, key)
);
CREATE TABLE heartbeats (
  check_id text PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
  ping_token text NOT NULL UNIQUE,
  last_ping_at double precision,
  -- When the current deadline started counting (creation, last ping, or last miss).
  since double precision NOT NULL
);
CREATE TABLE check_sessions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_id text NOT NULL,
  check_type text NOT NULL,
  name text NOT NULL,
  status text NOT NULL,
  run_source text NOT NULL,
  run_locations jsonb NOT NULL,
  started_at timestamptz NOT NULL,
  stopped_at timestamptz
);
CREATE TABLE check_triggers (
  check_id text PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
  account_id text NOT NULL,
  token text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE snippets (
  id serial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  script text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE TABLE dropped_runs (
  id text PRIMARY KEY,
  check_id text NOT NULL,
  location text NOT NULL,
  due_at double precision NOT NULL,
  reason text NOT NULL,
  dropped_at timestamptz NOT NULL DEFAULT now()
)
`,
  // 2: artifacts of browser runs (the bytes are in the artifact store; this is the index).
  `
CREATE TABLE artifacts (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_id text NOT NULL,
  job_id text NOT NULL,
  name text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX artifacts_check ON artifacts (check_id, created_at DESC)
`,
  // 3: alert channels and what subscribes to them (checks now; groups once they exist).
  `
CREATE TABLE alert_channels (
  id serial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  type text NOT NULL,
  config jsonb NOT NULL,
  send_recovery boolean NOT NULL,
  send_failure boolean NOT NULL,
  send_degraded boolean NOT NULL,
  ssl_expiry boolean NOT NULL,
  ssl_expiry_threshold integer NOT NULL,
  auto_subscribe boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX alert_channels_account ON alert_channels (account_id, id);
CREATE TABLE alert_subscriptions (
  id serial PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES alert_channels(id) ON DELETE CASCADE,
  check_id text REFERENCES checks(id) ON DELETE CASCADE,
  group_id integer,
  activated boolean NOT NULL
);
CREATE UNIQUE INDEX alert_subscriptions_check ON alert_subscriptions (channel_id, check_id) WHERE check_id IS NOT NULL;
CREATE UNIQUE INDEX alert_subscriptions_group ON alert_subscriptions (channel_id, group_id) WHERE group_id IS NOT NULL;
CREATE INDEX alert_subscriptions_of_check ON alert_subscriptions (check_id) WHERE check_id IS NOT NULL
`,
  // 4: the alert engine: each check's alert state, the alerts it raised, and the notifications
  // (an outbox: stored before they are sent, marked after).
  `
CREATE TABLE alert_states (
  check_id text PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
  state jsonb NOT NULL
);
CREATE TABLE check_alerts (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_id text NOT NULL,
  name text NOT NULL,
  alert_type text NOT NULL,
  check_type text NOT NULL,
  run_location text,
  response_time double precision,
  error text,
  status_code integer,
  started_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX check_alerts_account ON check_alerts (account_id, created_at DESC);
CREATE TABLE alert_notifications (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  channel_id integer NOT NULL,
  check_id text NOT NULL,
  check_alert_id text NOT NULL,
  check_result_id text,
  alert_type text NOT NULL,
  event jsonb NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at double precision NOT NULL,
  notification_result jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_notifications_due ON alert_notifications (next_attempt_at) WHERE status = 'IN_PROGRESS';
CREATE INDEX alert_notifications_account ON alert_notifications (account_id, created_at DESC)
`,
  // 5: check groups and their trigger URLs. A check names its group in its config (groupId).
  `
CREATE TABLE check_groups (
  id serial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX check_groups_account ON check_groups (account_id, id);
CREATE TABLE check_group_triggers (
  id serial PRIMARY KEY,
  group_id integer NOT NULL UNIQUE REFERENCES check_groups(id) ON DELETE CASCADE,
  account_id text NOT NULL,
  token text NOT NULL,
  called_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
)
`,
  // 6: retries. A run's attempts share a sequence; a retry waits as a job row due later, which
  // carries its place in the sequence ({id, attempt, startedAt}).
  `
ALTER TABLE check_results ADD COLUMN sequence_id text;
ALTER TABLE jobs ADD COLUMN sequence jsonb
`,
  // 7: maintenance windows (occurrences are computed from each window, not stored).
  `
CREATE TABLE maintenance_windows (
  id serial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX maintenance_windows_account ON maintenance_windows (account_id, id)
`,
  // 8: status-page services, dashboards, and the incidents shown on dashboards with their updates.
  `
CREATE TABLE status_page_services (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX status_page_services_account ON status_page_services (account_id, created_at, id);
CREATE TABLE dashboards (
  id serial PRIMARY KEY,
  dashboard_id text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  custom_url text UNIQUE,
  custom_domain text UNIQUE,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX dashboards_account ON dashboards (account_id, id);
CREATE TABLE incidents (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  dashboard_id integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
  name text NOT NULL,
  impact text NOT NULL,
  started_at timestamptz,
  stopped_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX incidents_dashboard ON incidents (dashboard_id, created_at);
CREATE TABLE incident_updates (
  id text PRIMARY KEY,
  incident_id text NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  status text NOT NULL,
  description text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX incident_updates_incident ON incident_updates (incident_id, created_at)
`,
  // 9: status-page incidents (on services; what triggerIncident opens) and their updates.
  `
CREATE TABLE service_incidents (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  severity text NOT NULL,
  service_ids jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX service_incidents_account ON service_incidents (account_id, created_at);
CREATE TABLE service_incident_updates (
  id text PRIMARY KEY,
  incident_id text NOT NULL REFERENCES service_incidents(id) ON DELETE CASCADE,
  status text NOT NULL,
  description text NOT NULL,
  public_incident_update_date timestamptz NOT NULL,
  notify_subscribers boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX service_incident_updates_incident ON service_incident_updates (incident_id, created_at)
`,
  // 10: status pages (their cards of services are part of the page's settings).
  `
CREATE TABLE status_pages (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url text NOT NULL UNIQUE,
  custom_domain text UNIQUE,
  config jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX status_pages_account ON status_pages (account_id, created_at)
`,
  // 11: each check's FINAL results by UTC day, kept as results are stored: uptime over 90 days
  // is then 90 rows a check, not a scan of every result.
  `
CREATE TABLE check_days (
  check_id text NOT NULL,
  day text NOT NULL,
  runs integer NOT NULL,
  failures integer NOT NULL,
  degraded integer NOT NULL,
  response_time_sum double precision NOT NULL,
  PRIMARY KEY (check_id, day)
)
`,
  // 12: keys that open private status pages and dashboards to the readers their owners choose.
  `
CREATE TABLE page_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  page_kind text NOT NULL,
  page_id text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  masked_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz
);
CREATE INDEX page_keys_page ON page_keys (page_kind, page_id)
`,
  // 13: status-page subscribers, and the emails to them: an outbox like alert notifications',
  // written with the incident update that causes them and marked once the mail server took them.
  `
CREATE TABLE status_page_subscriptions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status_page_id text NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
  type text NOT NULL,
  address text NOT NULL,
  status text NOT NULL,
  token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  UNIQUE (status_page_id, address)
);
CREATE TABLE subscriber_emails (
  id text PRIMARY KEY,
  subscription_id text NOT NULL REFERENCES status_page_subscriptions(id) ON DELETE CASCADE,
  message jsonb NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at double precision NOT NULL,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriber_emails_due ON subscriber_emails (next_attempt_at) WHERE status = 'IN_PROGRESS'
`,
  // 14: no index of jobs by check. Every run inserted and deleted an entry in it at a random
  // place (a fifth of the bytes the embedded store wrote per result); only deleting a check
  // looked jobs up by check, and the jobs table holds only runs not yet reported, so that
  // scan is short.
  `
DROP INDEX IF EXISTS jobs_check
`,
  // 15: how far the embedded store has folded results into check statuses and days (it folds
  // them in bulk, a while after storing them). PostgreSQL folds each batch as it stores it and
  // leaves this empty.
  `
CREATE TABLE result_folds (
  id integer PRIMARY KEY,
  through_rowid bigint NOT NULL
)
`,
  // 16: how far the scheduler has dispatched, one time for all checks instead of a next due
  // time per check: every run due up to it is out, and each check's next due time follows
  // from its schedule. Rewriting each check's row on every run cost a random page per run.
  `
CREATE TABLE scheduler_state (
  id integer PRIMARY KEY,
  dispatched_through double precision NOT NULL
)
`,
  // 17: from the earliest next due time stored: a run already made may be made again (its
  // result is then refused by job id), none is skipped.
  `
INSERT INTO scheduler_state (id, dispatched_through) SELECT 1, min(next_due_at) - 1 FROM check_schedule HAVING count(*) > 0
`,
  `
DROP TABLE check_schedule
`,
];

/**
 * PostgreSQL DDL as SQLite takes it. Declared types stay telling (SQLite keeps them and the
 * driver decodes by them): booleans are 0/1, timestamptz epoch milliseconds, JSON text.
 */
export function sqliteDdl(sql: string): string {
  return sql
    .replace(/\bjsonb\b/g, 'json_text')
    .replace(/\bserial PRIMARY KEY\b/g, 'INTEGER PRIMARY KEY AUTOINCREMENT')
    .replace(/\bDEFAULT now\(\)/g, "DEFAULT (CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER))");
}
