import { createRequire } from 'node:module'
import type { QrSymbol } from '../symbol.js'

/** What a module is, for drawing: only data modules take the style's shape (DESIGN §13). */
export enum Role {
  /** Format, version and data modules: drawn in `moduleShape`. */
  Data = 0,
  /** Part of one of the three 7×7 finder patterns (or its separator): drawn by the finder shapes. */
  Finder = 1,
  /**
   * Timing or alignment pattern, format or version information: always square, since scanners
   * (jsQR above all) locate and sample them before they read any data.
   */
  Fixed = 2,
}

const require = createRequire(import.meta.url)
const alignment: {
  getPositions(version: number): Array<[number, number]>
} = require('qrcode/lib/core/alignment-pattern')

/** The top-left corners (row, col) of the three finder patterns. */
export function finderOrigins(size: number): Array<[number, number]> {
  return [
    [0, 0],
    [0, size - 7],
    [size - 7, 0],
  ]
}

/** Role of every module, `roles[row * size + col]`. */
export function moduleRoles(symbol: QrSymbol): Uint8Array {
  const { size, version } = symbol
  const roles = new Uint8Array(size * size)
  for (const [r0, c0] of finderOrigins(size)) {
    // The finder and its one-module separator: the separator is light, so claiming it only
    // keeps data shapes out of the finder's surroundings.
    for (let r = Math.max(0, r0 - 1); r < Math.min(size, r0 + 8); r++)
      for (let c = Math.max(0, c0 - 1); c < Math.min(size, c0 + 8); c++) roles[r * size + c] = Role.Finder
  }
  for (let i = 8; i < size - 8; i++) {
    roles[6 * size + i] = Role.Fixed
    roles[i * size + 6] = Role.Fixed
  }
  // Format information beside the finders, and the dark module.
  for (let i = 0; i <= 8; i++) {
    roles[8 * size + i] = Role.Fixed
    roles[i * size + 8] = Role.Fixed
  }
  for (let i = size - 8; i < size; i++) {
    roles[8 * size + i] = Role.Fixed
    roles[i * size + 8] = Role.Fixed
  }
  // Version information (version 7 and up): 6×3 blocks beside the top-right and bottom-left finders.
  if (version >= 7) {
    for (let a = 0; a < 6; a++)
      for (let b = size - 11; b < size - 8; b++) {
        roles[a * size + b] = Role.Fixed
        roles[b * size + a] = Role.Fixed
      }
  }
  for (const [row, col] of alignment.getPositions(version)) {
    for (let r = row - 2; r <= row + 2; r++)
      for (let c = col - 2; c <= col + 2; c++) roles[r * size + c] = Role.Fixed
  }
  return roles
}
