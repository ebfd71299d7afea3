import type { Migration } from 'kysely'
import * as initial from './2026_11_21_0900_initial.js'
import * as createShowcases from './2026_11_22_1000_create_showcases.js'
import * as createScans from './2026_11_22_1100_create_scans.js'
import * as addExternalId from './2026_11_24_1200_add_external_id.js'
import * as uniqueExternalId from './2026_11_24_1210_unique_external_id.js'
import * as createScanQuarters from './2026_11_25_1400_create_scan_quarters.js'
import * as createScanVisitorDates from './2026_11_25_1410_create_scan_visitor_dates.js'
import * as indexScansByTime from './2026_11_25_1420_index_scans_by_time.js'

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
  '2026_11_25_1400_create_scan_quarters': createScanQuarters,
  '2026_11_25_1410_create_scan_visitor_dates': createScanVisitorDates,
  '2026_11_25_1420_index_scans_by_time': indexScansByTime,
}
