import type { DecodeCheckPool } from '@qrctl/render/check'
import type { Config } from './config.js'
import type { Db, Dialect } from './db/database.js'
import type { Clock } from './lib/clock.js'
import type { Ids } from './lib/ids.js'
import type { Logger } from './logger.js'

/**
 * What services need, passed explicitly: database, config, clock, id source, logger, and the
 * threads that run the decode checks of styled codes (DESIGN §13).
 */
export interface Ctx {
  db: Db
  dialect: Dialect
  config: Config
  clock: Clock
  ids: Ids
  logger: Logger
  checks: DecodeCheckPool
}
