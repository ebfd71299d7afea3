import { type Api, bodyOf, pathId } from '../api.js'
import { QrctlError } from '../errors.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import type {
  AccountAnalytics,
  AccountAnalyticsParams,
  ExportScansParams,
  ScansParams,
  ScansReport,
} from '../types.js'

/** `qrctl.analytics`: windows in any time zone across codes, per-code scans, and the CSV export. */
export class AnalyticsResource {
  readonly #api: Api

  constructor(api: Api) {
    this.#api = api
  }

  /**
   * Analytics of every live code of the account, or of `qrCodeIds`, with `topCodes`; a visitor counts once.
   * @example const spring = await qrctl.analytics.get({ qrCodeIds: ids.join(','), from: '2026-03-01', to: '2026-05-31', timezone: 'Europe/Berlin', compare: 'previous' })
   */
  async get(params: AccountAnalyticsParams = {}, options?: RequestOptions): Promise<AccountAnalytics> {
    const response = await this.#api.analytics.account({
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * One code's scans per local day, country, device and referrer (today and the 29 days before by default).
   * @example const { byDate } = await qrctl.analytics.scans(id, { from: '2026-03-01', to: '2026-03-31', timezone: 'Pacific/Auckland' })
   */
  async scans(id: string, params: ScansParams = {}, options?: RequestOptions): Promise<ScansReport> {
    const response = await this.#api.analytics.scans({
      params: { id: pathId(id) },
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Every scan of the window as CSV, streamed: the bytes arrive as the server sends them.
   * @example for await (const chunk of await qrctl.analytics.export({ from: '2026-03-01', to: '2026-03-31' })) file.write(chunk)
   */
  async export(params: ExportScansParams, options?: RequestOptions): Promise<ReadableStream<Uint8Array>> {
    const response = await this.#api.analytics.export({
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    const body: unknown = bodyOf(response, 200)
    if (body instanceof ReadableStream) return body as ReadableStream<Uint8Array>
    if (typeof body === 'string') return new Blob([body]).stream()
    throw new QrctlError('Unexpected export body from the API')
  }
}
