import { z } from 'zod'
import { strictObject } from './common.js'

export const API_KEY_PREFIX = 'qrk_'
export const API_KEY_PATTERN = /^qrk_[A-Za-z0-9]{40}$/

export const Scope = z
  .enum(['read', 'write', 'read_write'])
  .describe('`read`: GET only; `write`: all but GET; `read_write`: all')
export type Scope = z.infer<typeof Scope>

export const ApiKey = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    environment: z.string().nullable(),
    scope: Scope,
    prefix: z.string().describe('First 8 characters of the key, for recognising it'),
    lastFour: z.string().describe('Last 4 characters of the key'),
    createdAt: z.string().datetime(),
    lastUsedAt: z.string().datetime().nullable().describe('Updated at most once a minute'),
    expiresAt: z.string().datetime().nullable().describe('Set while a rotated key is in its grace period'),
  })
  .describe('An API key, without its secret')
export type ApiKey = z.infer<typeof ApiKey>

export const ApiKeyWithSecret = ApiKey.extend({
  secret: z.string().describe('The key itself. Shown once, at creation: store it now'),
})
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecret>

export const CreateApiKey = strictObject({
  name: z.string().min(1, 'Must not be empty').max(100, 'Must be at most 100 characters'),
  environment: z
    .string()
    .min(1, 'Must not be empty')
    .max(50, 'Must be at most 50 characters')
    .regex(/^[A-Za-z0-9_.-]+$/, 'Use letters, digits, _, . and -')
    .optional()
    .describe('A free label such as production or staging'),
  scope: Scope.default('read_write'),
})
export type CreateApiKey = z.infer<typeof CreateApiKey>

export const RotateApiKey = strictObject({
  gracePeriodSeconds: z
    .number()
    .int('Must be a whole number')
    .min(0, 'Must be 0–86400')
    .max(86_400, 'Must be 0–86400')
    .default(0)
    .describe('How long the old key keeps working, 0–86400 seconds'),
})
export type RotateApiKey = z.infer<typeof RotateApiKey>
