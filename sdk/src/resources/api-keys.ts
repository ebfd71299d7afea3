import { type Api, bodyOf, pathId } from '../api.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import type {
  ApiKey,
  ApiKeyWithSecret,
  CreateApiKeyParams,
  DeleteResult,
  RotateApiKeyParams,
} from '../types.js'

/** `qrctl.apiKeys`: the account's API keys. Needs a `read_write` key. */
export class ApiKeys {
  readonly #api: Api

  constructor(api: Api) {
    this.#api = api
  }

  /**
   * The keys that still work, without their secrets.
   * @example for (const key of await qrctl.apiKeys.list()) console.log(key.name, key.prefix, key.lastUsedAt)
   */
  async list(options?: RequestOptions): Promise<ApiKey[]> {
    const response = await this.#api.apiKeys.list({ requestOptions: checkRequestOptions(options) })
    return bodyOf(response, 200).data
  }

  /**
   * Creates a key. Its `secret` is in this answer only: store it now.
   * @example const { secret } = await qrctl.apiKeys.create({ name: 'CI', environment: 'staging', scope: 'read' })
   */
  async create(params: CreateApiKeyParams, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    const response = await this.#api.apiKeys.create({
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }

  /**
   * Revokes a key; it stops working at once.
   * @example await qrctl.apiKeys.revoke(id)
   */
  async revoke(id: string, options?: RequestOptions): Promise<DeleteResult> {
    const response = await this.#api.apiKeys.revoke({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Replaces a key with a new one of the same name, scope and environment. The old key keeps
   * working for `gracePeriodSeconds` (default 0).
   * @example const { secret } = await qrctl.apiKeys.rotate(id, { gracePeriodSeconds: 3600 })
   */
  async rotate(
    id: string,
    params: RotateApiKeyParams = {},
    options?: RequestOptions,
  ): Promise<ApiKeyWithSecret> {
    const response = await this.#api.apiKeys.rotate({
      params: { id: pathId(id) },
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }
}
