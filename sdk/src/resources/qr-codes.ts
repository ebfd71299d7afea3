import { type Api, bodyOf, pathId } from '../api.js'
import {
  type BatchAnswer,
  type BatchesOptions,
  type BatchSender,
  countFailedItems,
  reindexError,
  runBatches,
} from '../batch.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import { paginate } from '../paginate.js'
import type { Transport } from '../transport.js'
import type {
  Analytics,
  AnalyticsParams,
  BatchResult,
  BulkDeleteResult,
  BulkRestoreResult,
  BulkUpdateParams,
  BulkUpdateResult,
  CreateQrCodeParams,
  DeleteResult,
  ImageQueryParams,
  ListQrCodesParams,
  PreviewQrCodeParams,
  QrCode,
  QrCodePage,
  UpdateQrCodeParams,
} from '../types.js'

export type ImageFormat = 'png' | 'svg' | 'pdf'

export interface ImageParams extends ImageQueryParams {
  /** `png` (default size 512 px), `svg` or `pdf`. */
  format: ImageFormat
}

export interface PreviewParams extends PreviewQrCodeParams {
  /** `png` (default size 512 px, at most 1024) or `svg`. */
  format: 'png' | 'svg'
}

export interface BatchOptions extends RequestOptions {
  /** Validate every item and create nothing. */
  dryRun?: boolean
}

export interface CreateManyProgress {
  /** Input items sent so far. */
  done: number
  /** All input items. */
  total: number
  /** Codes created so far. */
  created: number
  /** Items rejected so far. */
  failed: number
}

export interface CreateManyOptions extends Omit<RequestOptions, 'idempotencyKey'> {
  /** Called after each batch of 100. */
  onProgress?: (progress: CreateManyProgress) => void
  /**
   * Batch k is sent with the Idempotency-Key `${prefix}-${k}`. Re-running the same input with
   * the same prefix (within 24 hours) resumes without creating anything twice.
   */
  idempotencyKeyPrefix?: string
  /** Validate every item and create nothing. */
  dryRun?: boolean
}

/** Bodies of binary answers: the transport reads every non-text answer as bytes (`readBody`). */
function toBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body
  if (typeof body === 'string') return new TextEncoder().encode(body)
  throw new TypeError('Qrctl: the image answer had no binary body')
}

/** `qrctl.qrCodes`: create, read, change, delete and render QR codes, and read their scans. */
export class QrCodes {
  readonly #api: Api
  readonly #transport: Transport

  constructor(api: Api, transport: Transport) {
    this.#api = api
    this.#transport = transport
  }

  /**
   * One page of codes, newest first unless `sort` says otherwise; filters combine (`tag`, every
   * one of several; `search`; `isActive`; `type`; `externalId`; `deleted`).
   * @example const { data, total } = await qrctl.qrCodes.list({ tag: ['spring'], search: 'table 4', sort: '-totalScans' })
   */
  async list(params: ListQrCodesParams = {}, options?: RequestOptions): Promise<QrCodePage> {
    const response = await this.#api.qrCodes.list({
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Every code of every page, fetched as you iterate, with every filter and sort of `list`.
   * `limit` sets the page size (default 100).
   * @example for await (const code of qrctl.qrCodes.listAll({ tag: ['spring'], isActive: true })) console.log(code.name)
   */
  listAll(params: ListQrCodesParams = {}, options?: RequestOptions): AsyncGenerator<QrCode, void, undefined> {
    const { offset = 0, limit = 100, ...filters } = params
    return paginate((pageOffset) => this.list({ ...filters, limit, offset: pageOffset }, options), offset)
  }

  /**
   * Creates a code. Retries reuse one Idempotency-Key, so a retried create never duplicates.
   * @example const code = await qrctl.qrCodes.create({ name: 'Menu', contentType: 'url', content: 'https://example.com/menu', type: 'dynamic' })
   */
  async create(params: CreateQrCodeParams, options?: RequestOptions): Promise<QrCode> {
    const response = await this.#api.qrCodes.create({
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }

  /**
   * One code by id.
   * @example const code = await qrctl.qrCodes.get(id)
   */
  async get(id: string, options?: RequestOptions): Promise<QrCode> {
    const response = await this.#api.qrCodes.get({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Changes a code; a new `targetUrl` retargets a dynamic code at once.
   * @example await qrctl.qrCodes.update(id, { targetUrl: 'https://example.com/summer' })
   */
  async update(id: string, params: UpdateQrCodeParams, options?: RequestOptions): Promise<QrCode> {
    const response = await this.#api.qrCodes.update({
      params: { id: pathId(id) },
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Soft-deletes a code; `restore` brings it back within 30 days.
   * @example await qrctl.qrCodes.delete(id)
   */
  async delete(id: string, options?: RequestOptions): Promise<DeleteResult> {
    const response = await this.#api.qrCodes.delete({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Restores a code deleted in the last 30 days.
   * @example const code = await qrctl.qrCodes.restore(id)
   */
  async restore(id: string, options?: RequestOptions): Promise<QrCode> {
    const response = await this.#api.qrCodes.restore({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Creates up to 100 codes in one request. Invalid items do not stop the valid ones: each
   * becomes one string in `errors`, prefixed with its index (`codes[3].content: …`).
   * @example const { created, errors, items } = await qrctl.qrCodes.batch(codes, { dryRun: true })
   */
  async batch(codes: CreateQrCodeParams[], options: BatchOptions = {}): Promise<BatchResult> {
    return (await this.#sendBatch(codes, options)).result
  }

  /** One batch request, with whether the server replayed it (its own answer, not `lastResponse`). */
  async #sendBatch(
    codes: CreateQrCodeParams[],
    options: BatchOptions,
  ): Promise<{ result: BatchResult; replayed: boolean }> {
    const { dryRun, ...requestOptions } = options
    const response = await this.#api.qrCodes.batch({
      query: dryRun === undefined ? {} : { dryRun },
      body: { codes },
      requestOptions: checkRequestOptions(requestOptions),
    })
    const result = bodyOf(response, 201).data
    return { result, replayed: response.headers.get('idempotent-replayed') === 'true' }
  }

  /**
   * Any number of codes, sent as batches of 100 one after the other, each yielded with its
   * answer as it arrives. Waits for the rate-limit window to reset instead of earning a 429
   * (`onWait` is told), and says per batch whether the server replayed it from its
   * Idempotency-Key store. `idempotencyKey` derives each batch's key from the input, so a
   * re-run resumes; `known` skips batches whose answer you saved.
   * @example for await (const b of qrctl.qrCodes.batches(codes, { idempotencyKey: (b) => `import-7-${b.index}` })) console.log(b.index, b.source, b.result.created)
   */
  batches(
    codes: readonly CreateQrCodeParams[],
    options: BatchesOptions = {},
  ): AsyncGenerator<BatchAnswer, void, undefined> {
    const sender: BatchSender = {
      send: (batch, sendOptions) => this.#sendBatch(batch, sendOptions),
      lastRateLimit: () => this.#transport.lastRateLimit,
    }
    return runBatches(sender, codes, options)
  }

  /**
   * Creates any number of codes, 100 per request, one batch after the other. The result
   * covers the whole input: indexes in `errors` refer to `codes`.
   * @example const result = await qrctl.qrCodes.createMany(codes, { onProgress: (p) => console.error(`${p.done}/${p.total}`) })
   */
  async createMany(codes: CreateQrCodeParams[], options: CreateManyOptions = {}): Promise<BatchResult> {
    const { onProgress, idempotencyKeyPrefix, ...batchOptions } = options
    const result: BatchResult = { created: 0, errors: [], items: [] }
    let done = 0
    let failed = 0
    const keyed =
      idempotencyKeyPrefix === undefined
        ? batchOptions
        : { ...batchOptions, idempotencyKey: (b: { index: number }) => `${idempotencyKeyPrefix}-${b.index}` }
    for await (const batch of this.batches(codes, keyed)) {
      result.created += batch.result.created
      result.errors.push(...batch.result.errors.map((error) => reindexError(error, batch.offset)))
      result.items.push(...batch.result.items)
      done += batch.codes.length
      failed += countFailedItems(batch.result.errors)
      onProgress?.({ done, total: codes.length, created: result.created, failed })
    }
    return result
  }

  /**
   * Changes up to 100 codes in one transaction: `set` (`isActive`, `tags`), then `addTags`, then
   * `removeTags`. Ids that name no code of yours come back in `errors` (`ids[3]: not found`).
   * @example await qrctl.qrCodes.bulkUpdate({ ids, set: { isActive: false }, addTags: ['paused'] })
   */
  async bulkUpdate(params: BulkUpdateParams, options?: RequestOptions): Promise<BulkUpdateResult> {
    const response = await this.#api.qrCodes.bulkUpdate({
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Soft-deletes up to 100 codes in one transaction.
   * @example const { deleted, errors } = await qrctl.qrCodes.bulkDelete(ids)
   */
  async bulkDelete(ids: string[], options?: RequestOptions): Promise<BulkDeleteResult> {
    const response = await this.#api.qrCodes.bulkDelete({
      body: { ids },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Restores up to 100 codes deleted in the last 30 days, in one transaction.
   * @example const { restored, errors } = await qrctl.qrCodes.bulkRestore(ids)
   */
  async bulkRestore(ids: string[], options?: RequestOptions): Promise<BulkRestoreResult> {
    const response = await this.#api.qrCodes.bulkRestore({
      body: { ids },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Scan analytics for a period: `7d`, `30d` (default), `90d` or `all`.
   * @example const { totalEvents, eventsByDay } = await qrctl.qrCodes.analytics(id, { period: '7d' })
   */
  async analytics(id: string, params: AnalyticsParams = {}, options?: RequestOptions): Promise<Analytics> {
    const response = await this.#api.qrCodes.analytics({
      params: { id: pathId(id) },
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * The rendered image as bytes.
   * @example await writeFile('menu.png', await qrctl.qrCodes.image(id, { format: 'png', size: 1024 }))
   */
  async image(id: string, params: ImageParams, options?: RequestOptions): Promise<Uint8Array> {
    const { format, ...query } = params
    const args = { params: { id: pathId(id) }, query, requestOptions: checkRequestOptions(options) }
    const route = this.#imageRoute(format)
    const response = await route(args)
    return toBytes(bodyOf(response, 200))
  }

  /**
   * The server's own render of a design before it is saved (a live preview): nothing is stored.
   * A styled design that would not scan rejects with `QrctlUnscannableError`.
   * @example const png = await qrctl.qrCodes.preview({ format: 'png', contentType: 'url', content: 'https://example.com', style: { moduleShape: 'dot' } })
   */
  async preview(params: PreviewParams, options?: RequestOptions): Promise<Uint8Array> {
    const { format, ...body } = params
    const args = { body, requestOptions: checkRequestOptions(options) }
    if (format !== 'png' && format !== 'svg')
      throw new TypeError(`Qrctl: preview format must be 'png' or 'svg', not ${JSON.stringify(format)}`)
    const response = await (format === 'png'
      ? this.#api.qrCodes.previewPng(args)
      : this.#api.qrCodes.previewSvg(args))
    return toBytes(bodyOf(response, 200))
  }

  #imageRoute(format: ImageFormat) {
    if (format === 'png') return this.#api.qrCodes.imagePng
    if (format === 'svg') return this.#api.qrCodes.imageSvg
    if (format === 'pdf') return this.#api.qrCodes.imagePdf
    throw new TypeError(`Qrctl: image format must be 'png', 'svg' or 'pdf', not ${JSON.stringify(format)}`)
  }
}
