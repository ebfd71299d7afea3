import { WebhookEvent } from '@qrctl/contract'
import { createHmac, timingSafeEqual } from '#runtime'
import { QrctlError } from './errors.js'

export type { WebhookEvent, WebhookEventType } from '@qrctl/contract'

/** Why a delivery was not accepted. */
export type WebhookVerificationReason = 'headers' | 'timestamp' | 'signature' | 'replayed' | 'payload'

/**
 * The request is not a genuine, fresh qrctl delivery: answer it with a 4xx and do not act on it.
 * @example if (error instanceof QrctlWebhookVerificationError) res.status(400).end()
 */
export class QrctlWebhookVerificationError extends QrctlError {
  override name = 'QrctlWebhookVerificationError'
  readonly reason: WebhookVerificationReason

  constructor(message: string, reason: WebhookVerificationReason) {
    super(message)
    this.reason = reason
  }
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300, as Standard Webhooks advises). */
  toleranceSeconds?: number
  /** The current time (tests). */
  now?: Date
  /**
   * `webhook-id`s already accepted: a delivery whose id is in it throws `replayed`, and an
   * accepted one is added. Deliveries are at least once, so a receiver deduplicates by id.
   */
  seen?: Set<string>
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const bag = headers as Record<string, string | string[] | undefined>
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : bag[key]
  return Array.isArray(value) ? value[0] : value
}

/**
 * Checks a delivery the way Standard Webhooks v1 specifies (the HMAC-SHA256 of
 * `id.timestamp.body` under the secret's bytes, any of the space-separated `v1,` signatures,
 * a timestamp within the tolerance) and answers the event, typed by its `type`. Pass the body
 * exactly as received, before any JSON parsing.
 * @example
 * const event = verifyWebhook(rawBody, req.headers, process.env.QRCTL_WEBHOOK_SECRET!)
 * if (event.type === 'scan.created') console.log(event.data.country)
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures)
    throw new QrctlWebhookVerificationError(
      'Missing webhook-id, webhook-timestamp or webhook-signature',
      'headers',
    )
  const seconds = Number(timestamp)
  const now = (options.now ?? new Date()).getTime() / 1000
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new QrctlWebhookVerificationError('The webhook-timestamp is too old or too new', 'timestamp')
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8')
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  const matches = signatures.split(' ').some((candidate) => {
    const [version, signature] = candidate.split(',')
    if (version !== 'v1' || !signature) return false
    const given = Buffer.from(signature, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) throw new QrctlWebhookVerificationError('No signature matches this secret', 'signature')
  if (options.seen?.has(id)) throw new QrctlWebhookVerificationError(`Already received ${id}`, 'replayed')
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new QrctlWebhookVerificationError('The body is not JSON', 'payload')
  }
  const event = WebhookEvent.safeParse(parsed)
  if (!event.success) throw new QrctlWebhookVerificationError('The body is not a qrctl event', 'payload')
  options.seen?.add(id)
  return event.data
}
