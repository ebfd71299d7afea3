import {
  type QrCode,
  type RedirectFieldsInput,
  type RedirectRule,
  redirectFieldsOnStatic,
  type Utm,
} from '@qrctl/contract'
import type { Selectable, Updateable } from 'kysely'
import type { QrCodesTable } from '../../db/schema.js'
import { validation } from '../../errors.js'

/**
 * DESIGN §14 as a code's record holds it: what decides where its scans go besides
 * `targetUrl`. `passwordHash` never leaves the server; answers say `hasPassword`.
 */
export interface RedirectSettings {
  rules: RedirectRule[] | null
  /** ISO-8601 UTC. */
  expiresAt: string | null
  expiredUrl: string | null
  maxScans: number | null
  afterLimitUrl: string | null
  /** Redirects to the code's own destinations counted against `maxScans` (the reservation). */
  scansReserved: number
  passwordHash: string | null
  utm: Utm | null
  forwardQuery: boolean
}

export const NO_REDIRECT_SETTINGS: RedirectSettings = {
  rules: null,
  expiresAt: null,
  expiredUrl: null,
  maxScans: null,
  afterLimitUrl: null,
  scansReserved: 0,
  passwordHash: null,
  utm: null,
  forwardQuery: false,
}

type Row = Pick<
  Selectable<QrCodesTable>,
  | 'rules'
  | 'expires_at'
  | 'expired_url'
  | 'max_scans'
  | 'after_limit_url'
  | 'scans_reserved'
  | 'password_hash'
  | 'utm'
  | 'forward_query'
>

export function toRedirectSettings(row: Row): RedirectSettings {
  return {
    rules: row.rules ? (JSON.parse(row.rules) as RedirectRule[]) : null,
    expiresAt: row.expires_at,
    expiredUrl: row.expired_url,
    // pg answers bigint as a string.
    maxScans: row.max_scans === null ? null : Number(row.max_scans),
    afterLimitUrl: row.after_limit_url,
    scansReserved: Number(row.scans_reserved),
    passwordHash: row.password_hash,
    utm: row.utm ? (JSON.parse(row.utm) as Utm) : null,
    forwardQuery: Boolean(row.forward_query),
  }
}

/** The columns for (some of) these settings. */
export function redirectSettingsColumns(s: Partial<RedirectSettings>): Updateable<QrCodesTable> {
  return {
    ...(s.rules !== undefined && { rules: s.rules ? JSON.stringify(s.rules) : null }),
    ...(s.expiresAt !== undefined && { expires_at: s.expiresAt }),
    ...(s.expiredUrl !== undefined && { expired_url: s.expiredUrl }),
    ...(s.maxScans !== undefined && { max_scans: s.maxScans }),
    ...(s.afterLimitUrl !== undefined && { after_limit_url: s.afterLimitUrl }),
    ...(s.scansReserved !== undefined && { scans_reserved: s.scansReserved }),
    ...(s.passwordHash !== undefined && { password_hash: s.passwordHash }),
    ...(s.utm !== undefined && { utm: s.utm ? JSON.stringify(s.utm) : null }),
    ...(s.forwardQuery !== undefined && { forward_query: s.forwardQuery ? 1 : 0 }),
  }
}

/** The fields every QrCode answers (DESIGN §14): unset ones null, `hasPassword` instead of the hash. */
export function redirectFieldsOf(
  s: RedirectSettings,
): Pick<
  QrCode,
  'rules' | 'expiresAt' | 'expiredUrl' | 'maxScans' | 'afterLimitUrl' | 'hasPassword' | 'utm' | 'forwardQuery'
> {
  return {
    rules: s.rules,
    expiresAt: s.expiresAt,
    expiredUrl: s.expiredUrl,
    maxScans: s.maxScans,
    afterLimitUrl: s.afterLimitUrl,
    hasPassword: s.passwordHash !== null,
    utm: s.utm,
    forwardQuery: s.forwardQuery,
  }
}

/** `[]` rules and an empty `utm` mean none: stored as null (DESIGN §14). */
const orNull = <T>(value: T[] | null | undefined) => (value && value.length > 0 ? value : null)
const utmOrNull = (utm: Utm | null | undefined) =>
  utm && Object.values(utm).some((v) => v !== undefined) ? utm : null

/**
 * The settings a create or PATCH asks for (only the fields it names). `passwordHash` is the
 * hash of the input's password, made by the caller (scrypt is asynchronous).
 */
export function requestedSettings(
  input: RedirectFieldsInput,
  passwordHash: string | null | undefined,
): Partial<RedirectSettings> {
  const out: Partial<RedirectSettings> = {}
  if (input.rules !== undefined) out.rules = orNull(input.rules)
  if (input.expiresAt !== undefined)
    out.expiresAt = input.expiresAt === null ? null : new Date(input.expiresAt).toISOString()
  if (input.expiredUrl !== undefined) out.expiredUrl = input.expiredUrl
  if (input.maxScans !== undefined) out.maxScans = input.maxScans
  if (input.afterLimitUrl !== undefined) out.afterLimitUrl = input.afterLimitUrl
  if (input.password !== undefined) out.passwordHash = passwordHash ?? null
  if (input.utm !== undefined) out.utm = utmOrNull(input.utm)
  if (input.forwardQuery !== undefined) out.forwardQuery = input.forwardQuery ?? false
  return out
}

/**
 * A PATCH's settings for `current`: refused on a static code (400 naming each field), and a
 * limit set where there was none starts from the scans the code already made (`totalScans`,
 * DESIGN §14 "since its creation"). Raising or clearing a limit keeps the count, so it reopens.
 */
export function patchSettings(
  current: { type: string; totalScans: number; maxScans: number | null },
  input: RedirectFieldsInput,
  passwordHash: string | null | undefined,
): Partial<RedirectSettings> {
  if (current.type === 'static') {
    const issues = redirectFieldsOnStatic(input)
    if (issues.length > 0) throw validation(issues, issues[0]?.message)
    return {}
  }
  const out = requestedSettings(input, passwordHash)
  if (out.maxScans != null && current.maxScans === null) out.scansReserved = current.totalScans
  return out
}

/** A PATCH split into the DESIGN §14 fields and the rest. */
export function splitRedirectPatch<T extends RedirectFieldsInput>(
  patch: T,
): { base: Omit<T, keyof RedirectFieldsInput>; redirect: RedirectFieldsInput } {
  const { rules, expiresAt, expiredUrl, maxScans, afterLimitUrl, password, utm, forwardQuery, ...base } =
    patch
  return {
    base,
    redirect: { rules, expiresAt, expiredUrl, maxScans, afterLimitUrl, password, utm, forwardQuery },
  }
}
