import { Slug } from '@qrctl/contract'

export const SLUG_MIN = 3
export const SLUG_MAX = 64

/** Used when a title has no letters or digits at all (say, only emoji). */
const FALLBACK = 'showcase'

/**
 * A slug from a title: accents folded, lowercase, every run of other characters one '-',
 * no '-' at either end, cut to 64 and padded to 3.
 * @example slugify('Café Müller – Menu') // 'cafe-muller-menu'
 */
export function slugify(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  const cut = base.slice(0, SLUG_MAX).replace(/-+$/, '')
  if (cut.length === 0) return FALLBACK
  if (cut.length < SLUG_MIN) return `${cut}-${FALLBACK}`
  return cut
}

/** The n-th candidate for a base slug: the base itself, then `base-2`, `base-3` …, each at most 64 long. */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base
  const suffix = `-${n}`
  return `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '')}${suffix}`
}

/** The first candidate not in `taken`. */
export function firstFreeSlug(base: string, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    const candidate = slugCandidate(base, n)
    if (!taken.has(candidate)) return candidate
  }
}

/** Every candidate of `base` starts with this, so one prefix query finds all that could clash. */
export function candidatePrefix(base: string): string {
  return base.slice(0, 40).replace(/-+$/, '')
}

/** True for a string the public route could serve: the contract's slug rule. */
export function isSlug(value: string): boolean {
  return Slug.safeParse(value).success
}
