import type { RouteScope, Scope } from '@qrctl/contract'
import { type AppError, insufficientScope, planRequired } from '../../errors.js'
import type { Plan, SubscriptionStatus } from './accounts.repository.js'

/** API access (and dynamic redirects, showcase pages) need the paid plan with a live subscription (DESIGN §3). */
export function hasActiveSubscription(account: {
  plan: Plan
  subscriptionStatus: SubscriptionStatus
}): boolean {
  return account.plan === 'pro' && account.subscriptionStatus !== 'canceled'
}

/** Which keys a route's declared scope admits, and how a refusal names them. */
const ADMITS: Record<RouteScope, { scopes: readonly Scope[]; needed: string }> = {
  read: { scopes: ['read', 'read_write'], needed: 'a read or read_write key' },
  write: { scopes: ['write', 'read_write'], needed: 'a write or read_write key' },
  read_write: { scopes: ['read_write'], needed: 'a read_write key' },
}

/**
 * What the plan and the key's scope say of a request to a route declaring `routeScope` in
 * the contract's metadata (DESIGN §3), before any work: the refusal, or undefined. A path
 * that is no route (`undefined`) is left to answer its 404.
 */
export function accessProblem(
  caller: { scope: Scope; plan: Plan; subscriptionStatus: SubscriptionStatus },
  routeScope: RouteScope | undefined,
): AppError | undefined {
  if (!hasActiveSubscription(caller)) return planRequired()
  if (routeScope === undefined) return undefined
  const admits = ADMITS[routeScope]
  if (!admits.scopes.includes(caller.scope)) return insufficientScope(caller.scope, admits.needed)
  return undefined
}
