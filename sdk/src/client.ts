import { type Api, createApi } from './api.js'
import {
  type QrctlOptions,
  type QrctlSessionOptions,
  type RateLimit,
  type ResponseInfo,
  resolveOptions,
} from './options.js'
import { AnalyticsResource } from './resources/analytics.js'
import { ApiKeys } from './resources/api-keys.js'
import { Assets } from './resources/assets.js'
import { QrCodes } from './resources/qr-codes.js'
import { Showcases } from './resources/showcases.js'
import { Tags } from './resources/tags.js'
import { Webhooks } from './resources/webhooks.js'
import { Transport } from './transport.js'

/**
 * The qrctl API client.
 * @example
 * const qrctl = new Qrctl({ apiKey: process.env.QRCTL_API_KEY! })
 * const code = await qrctl.qrCodes.create({ name: 'Menu', contentType: 'url', content: 'https://example.com/menu' })
 * @example
 * // In a page of the qrctl server (session mode): no key in the browser
 * const qrctl = new Qrctl({ baseUrl: location.origin, csrfToken })
 */
export class Qrctl {
  /**
   * QR codes: list, listAll, create, get, update, delete, restore, batch, createMany,
   * bulkUpdate, bulkDelete, bulkRestore, analytics, image, preview.
   */
  readonly qrCodes: QrCodes
  /** Showcase landing pages: list, listAll, create, get, update, delete. */
  readonly showcases: Showcases
  /** API keys: list, create, revoke, rotate. */
  readonly apiKeys: ApiKeys
  /** Webhooks: list, listAll, create, get, update, delete, test, deliveries, redeliver, rotateSecret. */
  readonly webhooks: Webhooks
  /** Tags in use, with counts: list. */
  readonly tags: Tags
  /** Images such as logos for `style.logo`: list, listAll, create, get, content, delete. */
  readonly assets: Assets
  /** Analytics across codes in any window and zone, one code's scans, and the CSV export. */
  readonly analytics: AnalyticsResource
  /** The server root requests go to. */
  readonly baseUrl: string
  readonly #transport: Transport

  /** With `apiKey` (servers, scripts) or, on a signed-in page of the qrctl server, `csrfToken`. */
  constructor(options: QrctlOptions | QrctlSessionOptions) {
    const resolved = resolveOptions(options)
    this.baseUrl = resolved.baseUrl
    this.#transport = new Transport(resolved)
    const api: Api = createApi(resolved.baseUrl, this.#transport)
    this.qrCodes = new QrCodes(api, this.#transport)
    this.showcases = new Showcases(api)
    this.apiKeys = new ApiKeys(api)
    this.webhooks = new Webhooks(api)
    this.tags = new Tags(api)
    this.assets = new Assets(api)
    this.analytics = new AnalyticsResource(api)
  }

  /**
   * `X-RateLimit-*` of the latest answer that carried them; undefined before the first request.
   * @example if (qrctl.lastRateLimit?.remaining === 0) await sleep(qrctl.lastRateLimit.reset * 1000)
   */
  get lastRateLimit(): RateLimit | undefined {
    return this.#transport.lastRateLimit
  }

  /**
   * `{ status, requestId, replayed, headers }` of the latest HTTP answer, error answers and
   * retried attempts included; undefined before the first. `replayed` is true when the server
   * answered from its Idempotency-Key store, having seen this request before.
   * @example await qrctl.qrCodes.batch(codes, { idempotencyKey: 'import-7' }); if (qrctl.lastResponse?.replayed) console.log('imported earlier')
   */
  get lastResponse(): ResponseInfo | undefined {
    return this.#transport.lastResponse
  }

  /**
   * Closes the client's keep-alive connections (idle ones close by themselves after 10 s).
   * @example await qrctl.close()
   */
  close(): Promise<void> {
    return this.#transport.close()
  }
}
