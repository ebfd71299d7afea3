import type { Migration } from 'kysely'
import * as initial from './2026_11_21_0900_initial.js'
import * as createShowcases from './2026_11_22_1000_create_showcases.js'
import * as createScans from './2026_11_22_1100_create_scans.js'
import * as addExternalId from './2026_11_24_1200_add_external_id.js'
import * as uniqueExternalId from './2026_11_24_1210_unique_external_id.js'
import * as createAssets from './2026_11_25_1000_create_assets.js'
import * as addRedirectRules from './2026_11_25_1100_add_redirect_rules.js'
import * as createWebhooks from './2026_11_25_1200_create_webhooks.js'
import * as createWebhookEvents from './2026_11_25_1210_create_webhook_events.js'
import * as createWebhookDeliveries from './2026_11_25_1220_create_webhook_deliveries.js'
import * as addSearchColumns from './2026_11_25_1300_add_search_columns.js'
import * as createQrCodeTags from './2026_11_25_1310_create_qr_code_tags.js'
import * as addListIndexes from './2026_11_25_1320_add_list_indexes.js'
import * as createSqliteSearchIndex from './2026_11_25_1330_create_sqlite_search_index.js'
import * as addActiveIndex from './2026_11_25_1340_add_active_index.js'
import * as createScanQuarters from './2026_11_25_1400_create_scan_quarters.js'
import * as createScanVisitorDates from './2026_11_25_1410_create_scan_visitor_dates.js'
import * as indexScansByTime from './2026_11_25_1420_index_scans_by_time.js'
import * as addDeletedAtToQrCodeTags from './2026_11_26_1100_add_deleted_at_to_qr_code_tags.js'
import * as createSqliteSearchGrams from './2026_11_26_1110_create_sqlite_search_grams.js'
import * as createSessions from './2026_11_27_1000_create_sessions.js'
import * as createLoginLinks from './2026_11_27_1010_create_login_links.js'
import * as addSearchTextToQrCodeTags from './2026_11_28_1000_add_search_text_to_qr_code_tags.js'
import * as createPostgresSearchTexts from './2026_11_28_1010_create_postgres_search_texts.js'
import * as createScanVisitorGaps from './2026_11_28_1100_create_scan_visitor_gaps.js'
import * as indexPostgresSearchGrams from './2026_11_28_1200_index_postgres_search_grams.js'
import * as addVisitLinks from './2026_11_28_1210_add_visit_links_to_scan_visitor_dates.js'
import * as createScanRunning from './2026_11_29_1200_create_scan_running.js'
import * as createScanWriters from './2026_11_30_1200_create_scan_writers.js'
import * as createPasswordLockouts from './2026_12_01_1000_create_password_lockouts.js'
import * as dropScanVisitors from './2026_12_02_1000_drop_scan_visitors.js'

/**
 * Every migration, in order. A static list (not a folder scan) so the same code runs from
 * TypeScript source and from the build. Add new ones at the end; never edit a shipped one.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_21_0900_initial': initial,
  '2026_11_22_1000_create_showcases': createShowcases,
  '2026_11_22_1100_create_scans': createScans,
  '2026_11_24_1200_add_external_id': addExternalId,
  '2026_11_24_1210_unique_external_id': uniqueExternalId,
  '2026_11_25_1000_create_assets': createAssets,
  '2026_11_25_1100_add_redirect_rules': addRedirectRules,
  '2026_11_25_1200_create_webhooks': createWebhooks,
  '2026_11_25_1210_create_webhook_events': createWebhookEvents,
  '2026_11_25_1220_create_webhook_deliveries': createWebhookDeliveries,
  '2026_11_25_1300_add_search_columns': addSearchColumns,
  '2026_11_25_1310_create_qr_code_tags': createQrCodeTags,
  '2026_11_25_1320_add_list_indexes': addListIndexes,
  '2026_11_25_1330_create_sqlite_search_index': createSqliteSearchIndex,
  '2026_11_25_1340_add_active_index': addActiveIndex,
  '2026_11_25_1400_create_scan_quarters': createScanQuarters,
  '2026_11_25_1410_create_scan_visitor_dates': createScanVisitorDates,
  '2026_11_25_1420_index_scans_by_time': indexScansByTime,
  '2026_11_26_1100_add_deleted_at_to_qr_code_tags': addDeletedAtToQrCodeTags,
  '2026_11_26_1110_create_sqlite_search_grams': createSqliteSearchGrams,
  '2026_11_27_1000_create_sessions': createSessions,
  '2026_11_27_1010_create_login_links': createLoginLinks,
  '2026_11_28_1000_add_search_text_to_qr_code_tags': addSearchTextToQrCodeTags,
  '2026_11_28_1010_create_postgres_search_texts': createPostgresSearchTexts,
  '2026_11_28_1100_create_scan_visitor_gaps': createScanVisitorGaps,
  '2026_11_28_1200_index_postgres_search_grams': indexPostgresSearchGrams,
  '2026_11_28_1210_add_visit_links_to_scan_visitor_dates': addVisitLinks,
  '2026_11_29_1200_create_scan_running': createScanRunning,
  '2026_11_30_1200_create_scan_writers': createScanWriters,
  '2026_12_01_1000_create_password_lockouts': createPasswordLockouts,
  '2026_12_02_1000_drop_scan_visitors': dropScanVisitors,
}
