import type { Generated } from 'kysely'

/**
 * Table types, as both dialects store them: times as ISO-8601 UTC text (they sort as
 * text), booleans as 0/1 integers, JSON as text. Repositories convert at their edge.
 */
export interface AccountsTable {
  id: string
  name: string
  plan: string
  subscription_status: string
  rate_limit_per_minute: number | null
  created_at: string
}

export interface ApiKeysTable {
  id: string
  account_id: string
  name: string
  environment: string | null
  scope: string
  key_hash: string
  prefix: string
  last_four: string
  created_at: string
  last_used_at: string | null
  expires_at: string | null
  revoked_at: string | null
}

export interface QrCodesTable {
  id: string
  account_id: string
  name: string
  type: string
  content_type: string
  content: string
  target_url: string | null
  short_code: string | null
  style: string | null
  is_active: number
  total_scans: Generated<number>
  external_id: string | null
  created_at: string
  updated_at: string
  deleted_at: string | null
  rules: string | null
  expires_at: string | null
  expired_url: string | null
  max_scans: number | string | null
  after_limit_url: string | null
  scans_reserved: Generated<number | string>
  password_hash: string | null
  utm: string | null
  forward_query: Generated<number>
  /** The code's tags, sorted, as JSON text (`[]` when none). */
  tags: Generated<string>
  /** Lower-cased name, content, targetUrl, shortCode and externalId joined by U+001F, for search. */
  search_text: Generated<string>
  /** Lower-cased name, for the name sort. */
  name_key: Generated<string>
}

export interface QrCodeTagsTable {
  qr_code_id: string
  account_id: string
  tag: string
  /** The code's `deleted_at`, copied (the tag filter's and GET /tags' liveness). */
  deleted_at: string | null
  /**
   * The code's `search_text`, copied when at most TAG_ROW_TEXT_MAX_BYTES (NULL otherwise), so a
   * tag and a search are counted from the tag's index alone.
   */
  search_text: string | null
}

/** PostgreSQL only: each code's search text and liveness, kept by triggers (short searches). */
export interface QrCodeTextsTable {
  qr_code_id: string
  account_id: string
  deleted_at: string | null
  search_text: string
}

export interface IdempotencyKeysTable {
  account_id: string
  key: string
  request_hash: string
  status: number | null
  response_body: string | null
  created_at: string
}

export interface ShowcasesTable {
  id: string
  account_id: string
  qr_code_id: string
  title: string
  slug: string
  description: string | null
  template: string
  custom_colors: string | null
  custom_background_url: string | null
  logo_url: string | null
  social_links: string | null
  cta_buttons: string | null
  show_branding: number
  is_active: number
  view_count: Generated<number>
  download_count: Generated<number>
  created_at: string
  updated_at: string
}

export interface SettingsTable {
  key: string
  value: string
}

export interface ScansTable {
  id: Generated<number>
  qr_code_id: string
  scanned_at: string
  visitor_id: string
  device: string
  browser: string | null
  os: string | null
  country: string | null
  city: string | null
  referrer: string | null
}

/** Rollups of scans: per UTC day (`scan_daily`) and over a code's life (`scan_totals`). */
export interface ScanDailyTable {
  qr_code_id: string
  dimension: string
  day: string
  value: string
  count: number
}

export interface ScanTotalsTable {
  qr_code_id: string
  dimension: string
  value: string
  count: number
}

export interface ScanVisitorDaysTable {
  qr_code_id: string
  day: string
  count: number
}

export interface WebhooksTable {
  id: string
  account_id: string
  url: string
  description: string | null
  events: string
  qr_code_ids: string | null
  is_active: number
  disabled_reason: string | null
  secret: string
  previous_secret: string | null
  previous_secret_until: string | null
  consecutive_failures: number
  created_at: string
  updated_at: string
}

export interface WebhookEventsTable {
  id: string
  account_id: string
  type: string
  qr_code_id: string | null
  body: string
  is_fanned_out: number
  is_bundle: number
  created_at: string
}

export interface WebhookDeliveriesTable {
  id: string
  webhook_id: string
  event_id: string
  type: string
  status: string
  attempts: number
  max_attempts: number
  next_attempt_at: string | null
  lease_until: string | null
  last_attempt_at: string | null
  response_status: number | null
  response_body: string | null
  duration_ms: number | null
  created_at: string
}

/** Images of an account (DESIGN §13), stored as PNG, base64. */
export interface AssetsTable {
  id: string
  account_id: string
  name: string | null
  content_type: string
  width: number
  height: number
  bytes: number
  data: string
  created_at: string
}

/** Rollups per 15-minute UTC bucket (`quarter` = epoch seconds / 900), for windows in any zone. */
export interface ScanQuartersTable {
  qr_code_id: string
  dimension: string
  quarter: number
  value: string
  count: number
}

/**
 * The rows of scan_quarters keyed by value, each with the code's scans of that value up to and
 * including its quarter (DESIGN §16: a window's count is two seeks per value).
 */
export interface ScanRunningTable {
  qr_code_id: string
  dimension: string
  value: string
  quarter: number
  count: number
  running: number
}

/** Per scan buffer, the sequence number of the last scan it stored (see `writeScans`). */
export interface ScanWritersTable {
  id: string
  through_seq: number
  updated_at: string
}

/**
 * DESIGN §14's password lockout per code and client address (under an HMAC of both): the
 * epoch milliseconds of the tries counted against it, as a JSON array, oldest first.
 */
export interface PasswordLockoutsTable {
  key: string
  tries: string
  /** The newest try + 15 minutes: after it the row means nothing and housekeeping removes it. */
  expires_at: string
}

/**
 * Each visitor of a code once per UTC day they scanned it: the first and last quarter hour of
 * their scans that day, and their previous and next visit day of the code ('' when none).
 */
export interface ScanVisitorDatesTable {
  qr_code_id: string
  day: string
  visitor_id: string
  first_quarter: number
  last_quarter: number
  previous_day: string
  next_day: string
}

/**
 * Per code and visit day: `previous_day` '' counts the visitors on `day` with no earlier visit;
 * a date p counts those whose previous visit day is p or earlier (a prefix sum over p).
 */
export interface ScanVisitorGapsTable {
  qr_code_id: string
  day: string
  previous_day: string
  visitors: number
}

/** A dashboard session (DESIGN §19): the cookie's id is stored only hashed. */
export interface SessionsTable {
  id_hash: string
  account_id: string
  api_key_id: string
  csrf_token: string
  created_at: string
  last_seen_at: string
}

/** A one-time sign-in link: its token stored only hashed, `used_at` set once. */
export interface LoginLinksTable {
  token_hash: string
  account_id: string
  created_at: string
  expires_at: string
  used_at: string | null
}

export interface Database {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  assets: AssetsTable
  qr_codes: QrCodesTable
  qr_code_tags: QrCodeTagsTable
  qr_code_texts: QrCodeTextsTable
  idempotency_keys: IdempotencyKeysTable
  settings: SettingsTable
  showcases: ShowcasesTable
  scans: ScansTable
  scan_daily: ScanDailyTable
  scan_totals: ScanTotalsTable
  scan_visitor_days: ScanVisitorDaysTable
  webhooks: WebhooksTable
  webhook_events: WebhookEventsTable
  webhook_deliveries: WebhookDeliveriesTable
  scan_quarters: ScanQuartersTable
  scan_running: ScanRunningTable
  scan_writers: ScanWritersTable
  password_lockouts: PasswordLockoutsTable
  scan_visitor_dates: ScanVisitorDatesTable
  scan_visitor_gaps: ScanVisitorGapsTable
  sessions: SessionsTable
  login_links: LoginLinksTable
}
