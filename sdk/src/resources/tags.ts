import { type Api, bodyOf } from '../api.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import type { TagCount } from '../types.js'

/** `qrctl.tags`: the tags on your codes. */
export class Tags {
  readonly #api: Api

  constructor(api: Api) {
    this.#api = api
  }

  /**
   * Every tag on your codes that are not deleted, by name, with how many codes carry it.
   * @example for (const { name, count } of await qrctl.tags.list()) console.log(name, count)
   */
  async list(options?: RequestOptions): Promise<TagCount[]> {
    const response = await this.#api.tags.list({ requestOptions: checkRequestOptions(options) })
    return bodyOf(response, 200).data
  }
}
