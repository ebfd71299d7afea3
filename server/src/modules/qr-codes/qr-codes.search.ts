import type { ListSort } from '@qrctl/contract'
import { sql } from 'kysely'
import type { Dialect } from '../../db/database.js'

/** Joins the searchable fields in `search_text`; no field or search can hold it (see SearchTerm). */
const SEPARATOR = '\u001f'

/**
 * Case folding for search, the same on both databases: JavaScript's full Unicode lower-casing
 * (SQLite's lower() is ASCII only), with the final sigma folded like any sigma so a search's
 * case never depends on where its letters stand in a word.
 */
export function foldCase(text: string): string {
  return text.toLowerCase().replaceAll('ς', 'σ')
}

/** The fields a search matches, as stored in `search_text` (DESIGN §17). */
export interface Searchable {
  name: string
  content: string
  targetUrl: string | null
  shortCode: string | null
  externalId: string | null
}

export function searchText(code: Searchable): string {
  return foldCase(
    [code.name, code.content, code.targetUrl ?? '', code.shortCode ?? '', code.externalId ?? '']
      .map((part) => part.replaceAll(SEPARATOR, ' '))
      .join(SEPARATOR),
  )
}

/** The key the name sort uses: the lower-cased name, compared by code point. */
export function nameKey(name: string): string {
  return name.toLowerCase()
}

/**
 * A `LIKE` pattern matching `term` anywhere, every character literal: `\`, `%` and `_` are
 * escaped with `\` (the query says `ESCAPE '\'`), and the pattern is a bound parameter.
 */
export function containsPattern(term: string): string {
  return `%${foldCase(term).replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
}

/**
 * `column` (a folded search text) contains `term`, every character literal, `term` a bound
 * parameter: PostgreSQL `LIKE` with `%`, `_` and `\` escaped (which its trigram index serves),
 * SQLite `instr`, which has no wildcards at all.
 */
export function containsCondition(dialect: Dialect, column: string, term: string) {
  return dialect === 'postgres'
    ? sql<boolean>`${sql.ref(column)} like ${containsPattern(term)} escape '\\'`
    : sql<boolean>`instr(${sql.ref(column)}, ${foldCase(term)}) > 0`
}

/** The column and direction of each list order; ties always go by id. */
export const SORT_COLUMNS = {
  createdAt: ['created_at', 'asc'],
  '-createdAt': ['created_at', 'desc'],
  updatedAt: ['updated_at', 'asc'],
  '-updatedAt': ['updated_at', 'desc'],
  name: ['name_key', 'asc'],
  '-name': ['name_key', 'desc'],
  totalScans: ['total_scans', 'asc'],
  '-totalScans': ['total_scans', 'desc'],
} as const satisfies Record<ListSort, readonly [string, 'asc' | 'desc']>
