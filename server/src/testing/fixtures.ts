import type { Db } from '../db/database.js'

/*
 * Rows the unit tests start from, written once: an account and its dynamic codes with only the
 * columns a code needs (the rest have defaults). Not part of the build (tsconfig.build.json).
 */

/** An active pro account. */
export async function insertAccount(db: Db, id: string, createdAt: string): Promise<void> {
  await db
    .insertInto('accounts')
    .values({ id, name: id, plan: 'pro', subscription_status: 'active', created_at: createdAt })
    .execute()
}

/**
 * One dynamic code per short code, to https://example.com/, each with the id `code-` and the
 * short code's first letter (`aaaaaaa` is `code-a`).
 */
export async function insertDynamicCodes(
  db: Db,
  accountId: string,
  shortCodes: string[],
  createdAt: string,
): Promise<void> {
  await db
    .insertInto('qr_codes')
    .values(
      shortCodes.map((shortCode) => ({
        id: `code-${shortCode[0]}`,
        account_id: accountId,
        name: shortCode,
        type: 'dynamic',
        content_type: 'url',
        content: 'https://example.com/',
        short_code: shortCode,
        is_active: 1,
        created_at: createdAt,
        updated_at: createdAt,
      })),
    )
    .execute()
}
