import type { ApiKeyWithSecret, Scope } from '@qrctl/contract'
import type { Ctx } from '../../context.js'
import { notFound } from '../../errors.js'
import { createKey } from '../api-keys/api-keys.service.js'
import type { Account, Plan, SubscriptionStatus } from './accounts.repository.js'
import * as repo from './accounts.repository.js'

/** A new account: the paid plan with an active subscription unless said otherwise. */
export interface NewAccount {
  name: string
  plan?: Plan
  subscriptionStatus?: SubscriptionStatus
  rateLimitPerMinute?: number | null
}

export async function createAccount(ctx: Ctx, input: NewAccount): Promise<Account> {
  const account: Account = {
    id: ctx.ids.uuid(),
    name: input.name,
    plan: input.plan ?? 'pro',
    subscriptionStatus: input.subscriptionStatus ?? 'active',
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    createdAt: ctx.clock.now().toISOString(),
  }
  await repo.insertAccount(ctx.db, account)
  return account
}

/** An account with a first read_write key: what `admin create-account` and the first start make. */
export async function createAccountWithKey(
  ctx: Ctx,
  input: NewAccount,
): Promise<{ account: Account; key: ApiKeyWithSecret }> {
  const account = await createAccount(ctx, input)
  const key = await createKey(ctx, account.id, { name: 'default', scope: 'read_write' })
  return { account, key }
}

export async function createAccountKey(
  ctx: Ctx,
  accountId: string,
  input: { name: string; environment?: string | null; scope: Scope },
): Promise<ApiKeyWithSecret> {
  if (!(await repo.findAccount(ctx.db, accountId))) throw notFound('account', accountId)
  return createKey(ctx, accountId, input)
}

export async function setPlan(
  ctx: Ctx,
  accountId: string,
  changes: { plan?: Plan; subscriptionStatus?: SubscriptionStatus; rateLimitPerMinute?: number | null },
): Promise<Account> {
  const updated = await repo.updateAccount(ctx.db, accountId, changes)
  if (updated === 0) throw notFound('account', accountId)
  return (await repo.findAccount(ctx.db, accountId)) as Account
}

/** On an empty database, the first start makes one paid account and hands back its key, once. */
export async function seedFirstAccount(
  ctx: Ctx,
): Promise<{ account: Account; key: ApiKeyWithSecret } | undefined> {
  if ((await repo.countAccounts(ctx.db)) > 0) return undefined
  return createAccountWithKey(ctx, { name: 'Default account', plan: 'pro', subscriptionStatus: 'active' })
}
