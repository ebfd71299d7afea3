import type { Auth } from '../modules/api-keys/api-keys.service.js'

declare global {
  namespace Express {
    interface Request {
      /** Set by the request-id middleware on every request. */
      id: string
      /** Set by the auth middleware on every /api/v1 request that passed it. */
      auth: Auth
    }
  }
}
