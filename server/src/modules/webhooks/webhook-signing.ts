import { createHmac, randomBytes } from 'node:crypto'

/** Standard Webhooks secrets: `whsec_` + base64 of 32 random bytes (DESIGN §15). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** The key a secret stands for: the base64-decoded bytes after `whsec_`. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
}

/**
 * `webhook-signature` of Standard Webhooks v1: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * per secret, space-separated (the newest first, then a rotated-out one still in its 24 hours).
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  const signed = `${id}.${timestamp}.${body}`
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`)
    .join(' ')
}
