import type { Db } from '../../db/database.js'

export const PLANS = ['free', 'pro'] as const
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled'] as const
export type Plan = (typeof PLANS)[number]
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]

export interface Account {
  id: string
  name: string
  plan: Plan
  subscriptionStatus: SubscriptionStatus
  rateLimitPerMinute: number | null
  createdAt: string
}

export async function insertAccount(db: Db, account: Account): Promise<void> {
  await db
    .insertInto('accounts')
    .values({
      id: account.id,
      name: account.name,
      plan: account.plan,
      subscription_status: account.subscriptionStatus,
      rate_limit_per_minute: account.rateLimitPerMinute,
      created_at: account.createdAt,
    })
    .execute()
}

export async function findAccount(db: Db, id: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
  return (
    row && {
      id: row.id,
      name: row.name,
      plan: row.plan as Plan,
      subscriptionStatus: row.subscription_status as SubscriptionStatus,
      rateLimitPerMinute: row.rate_limit_per_minute,
      createdAt: row.created_at,
    }
  )
}

export async function countAccounts(db: Db): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function updateAccount(
  db: Db,
  id: string,
  changes: { plan?: Plan; subscriptionStatus?: SubscriptionStatus; rateLimitPerMinute?: number | null },
): Promise<number> {
  const result = await db
    .updateTable('accounts')
    .set({
      ...(changes.plan !== undefined && { plan: changes.plan }),
      ...(changes.subscriptionStatus !== undefined && { subscription_status: changes.subscriptionStatus }),
      ...(changes.rateLimitPerMinute !== undefined && { rate_limit_per_minute: changes.rateLimitPerMinute }),
    })
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
