import { type Api, bodyOf, pathId } from '../api.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import { paginate } from '../paginate.js'
import type {
  CreateShowcaseParams,
  DeleteResult,
  ListShowcasesParams,
  Showcase,
  ShowcasePage,
  UpdateShowcaseParams,
} from '../types.js'

/** `qrctl.showcases`: public landing pages, one per QR code. */
export class Showcases {
  readonly #api: Api

  constructor(api: Api) {
    this.#api = api
  }

  /**
   * One page of showcases, newest first; `qrCodeId` narrows to one code's pages.
   * @example const { data } = await qrctl.showcases.list({ qrCodeId: code.id })
   */
  async list(params: ListShowcasesParams = {}, options?: RequestOptions): Promise<ShowcasePage> {
    const response = await this.#api.showcases.list({
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Every showcase of every page, fetched as you iterate.
   * @example for await (const page of qrctl.showcases.listAll()) console.log(page.url)
   */
  listAll(
    params: ListShowcasesParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<Showcase, void, undefined> {
    const { offset = 0, limit = 100, ...filters } = params
    return paginate((pageOffset) => this.list({ ...filters, limit, offset: pageOffset }, options), offset)
  }

  /**
   * Creates a landing page for one of your codes; a taken `slug` throws `QrctlConflictError`.
   * @example const page = await qrctl.showcases.create({ qrCodeId: code.id, title: 'Spring menu', template: 'modern' })
   */
  async create(params: CreateShowcaseParams, options?: RequestOptions): Promise<Showcase> {
    const response = await this.#api.showcases.create({
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }

  /**
   * One showcase by id.
   * @example const page = await qrctl.showcases.get(id)
   */
  async get(id: string, options?: RequestOptions): Promise<Showcase> {
    const response = await this.#api.showcases.get({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Changes a showcase, including its `socialLinks` and `ctaButtons`.
   * @example await qrctl.showcases.update(id, { ctaButtons: [{ label: 'Order', url: 'https://example.com/order' }] })
   */
  async update(id: string, params: UpdateShowcaseParams, options?: RequestOptions): Promise<Showcase> {
    const response = await this.#api.showcases.update({
      params: { id: pathId(id) },
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Deletes a showcase; its page answers 404 from then on.
   * @example await qrctl.showcases.delete(id)
   */
  async delete(id: string, options?: RequestOptions): Promise<DeleteResult> {
    const response = await this.#api.showcases.delete({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }
}
