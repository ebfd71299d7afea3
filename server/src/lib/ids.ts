import { hash, randomInt, randomUUID } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export function randomBase62(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)]
  return out
}

export interface Ids {
  uuid(): string
  /** 7 base62 characters: 62^7 ≈ 3.5 × 10^12 short links. */
  shortCode(): string
  /** `qrk_` and 40 base62 characters. */
  apiKeySecret(): string
}

export const randomIds: Ids = {
  uuid: () => randomUUID(),
  shortCode: () => randomBase62(7),
  apiKeySecret: () => `qrk_${randomBase62(40)}`,
}

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex')
}
