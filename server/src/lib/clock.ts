export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** A clock tests set and move by hand. */
export class ManualClock implements Clock {
  constructor(private current: Date = new Date()) {}
  now(): Date {
    return new Date(this.current)
  }
  set(date: Date | string): void {
    this.current = new Date(date)
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms)
  }
}

export const DAY_MS = 86_400_000

export function addDays(date: Date | string, days: number): Date {
  return new Date(new Date(date).getTime() + days * DAY_MS)
}
