import { type Api, bodyOf, pathId } from '../api.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import { paginate } from '../paginate.js'
import type { Asset, AssetPage, CreateAssetParams, DeleteResult, ListAssetsParams } from '../types.js'

/** `qrctl.assets`: images of the account, such as logos for `style.logo` (stored as PNG). */
export class Assets {
  readonly #api: Api

  constructor(api: Api) {
    this.#api = api
  }

  /**
   * One page of assets, newest first.
   * @example const { data, total } = await qrctl.assets.list({ limit: 20 })
   */
  async list(params: ListAssetsParams = {}, options?: RequestOptions): Promise<AssetPage> {
    const response = await this.#api.assets.list({
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Every asset of every page, fetched as you iterate.
   * @example for await (const asset of qrctl.assets.listAll()) console.log(asset.name, asset.width)
   */
  listAll(params: ListAssetsParams = {}, options?: RequestOptions): AsyncGenerator<Asset, void, undefined> {
    const { offset = 0, limit = 100 } = params
    return paginate((pageOffset) => this.list({ limit, offset: pageOffset }, options), offset)
  }

  /**
   * Uploads an image (PNG, JPEG, WebP or SVG, base64). It is re-encoded as PNG; use its `id` as `style.logo.assetId`.
   * @example const logo = await qrctl.assets.create({ name: 'logo', contentType: 'image/png', data: (await readFile('logo.png')).toString('base64') })
   */
  async create(params: CreateAssetParams, options?: RequestOptions): Promise<Asset> {
    const response = await this.#api.assets.create({
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }

  /**
   * One asset's metadata.
   * @example const { width, height } = await qrctl.assets.get(id)
   */
  async get(id: string, options?: RequestOptions): Promise<Asset> {
    const response = await this.#api.assets.get({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * The stored PNG.
   * @example await writeFile('logo.png', await qrctl.assets.content(id))
   */
  async content(id: string, options?: RequestOptions): Promise<Uint8Array> {
    const response = await this.#api.assets.content({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    const body: unknown = bodyOf(response, 200)
    if (body instanceof Uint8Array) return body
    throw new TypeError('Qrctl: the asset answer had no binary body')
  }

  /**
   * Deletes an asset; throws `QrctlConflictError` while the style of a code uses it.
   * @example await qrctl.assets.delete(id)
   */
  async delete(id: string, options?: RequestOptions): Promise<DeleteResult> {
    const response = await this.#api.assets.delete({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }
}
