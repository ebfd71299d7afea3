import { type Api, bodyOf, pathId } from '../api.js'
import { checkRequestOptions, type RequestOptions } from '../options.js'
import { paginate } from '../paginate.js'
import type {
  CreateWebhookParams,
  DeleteResult,
  ListDeliveriesParams,
  ListWebhooksParams,
  UpdateWebhookParams,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookPage,
  WebhookWithSecret,
} from '../types.js'

/** `qrctl.webhooks`: events pushed to your systems, signed as Standard Webhooks. */
export class Webhooks {
  readonly #api: Api

  constructor(api: Api) {
    this.#api = api
  }

  /**
   * One page of webhooks, newest first.
   * @example const { data } = await qrctl.webhooks.list()
   */
  async list(params: ListWebhooksParams = {}, options?: RequestOptions): Promise<WebhookPage> {
    const response = await this.#api.webhooks.list({
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Every webhook of every page, fetched as you iterate.
   * @example for await (const hook of qrctl.webhooks.listAll()) console.log(hook.url)
   */
  listAll(
    params: ListWebhooksParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<Webhook, void, undefined> {
    const { offset = 0, limit = 100 } = params
    return paginate((pageOffset) => this.list({ limit, offset: pageOffset }, options), offset)
  }

  /**
   * Creates a webhook. Its `secret` (for `verifyWebhook`) is in this answer only: store it now.
   * @example const { id, secret } = await qrctl.webhooks.create({ url: 'https://crm.example.com/qrctl', events: ['scan.created'] })
   */
  async create(params: CreateWebhookParams, options?: RequestOptions): Promise<WebhookWithSecret> {
    const response = await this.#api.webhooks.create({
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }

  /**
   * One webhook by id.
   * @example const hook = await qrctl.webhooks.get(id)
   */
  async get(id: string, options?: RequestOptions): Promise<Webhook> {
    const response = await this.#api.webhooks.get({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Changes a webhook; `isActive: true` enables a disabled one again.
   * @example await qrctl.webhooks.update(id, { events: ['*'] })
   */
  async update(id: string, params: UpdateWebhookParams, options?: RequestOptions): Promise<Webhook> {
    const response = await this.#api.webhooks.update({
      params: { id: pathId(id) },
      body: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200).data
  }

  /**
   * Deletes a webhook and what it had pending.
   * @example await qrctl.webhooks.delete(id)
   */
  async delete(id: string, options?: RequestOptions): Promise<DeleteResult> {
    const response = await this.#api.webhooks.delete({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * Queues a `webhook.test` event for this webhook; answers its delivery.
   * @example const delivery = await qrctl.webhooks.test(id)
   */
  async test(id: string, options?: RequestOptions): Promise<WebhookDelivery> {
    const response = await this.#api.webhooks.test({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 202).data
  }

  /**
   * One page of the webhook's deliveries, newest first.
   * @example const { data } = await qrctl.webhooks.deliveries(id, { limit: 10 })
   */
  async deliveries(
    id: string,
    params: ListDeliveriesParams = {},
    options?: RequestOptions,
  ): Promise<WebhookDeliveryPage> {
    const response = await this.#api.webhooks.deliveries({
      params: { id: pathId(id) },
      query: params,
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 200)
  }

  /**
   * One more attempt of a delivery, with the same `webhook-id`.
   * @example await qrctl.webhooks.redeliver(webhookId, deliveryId)
   */
  async redeliver(id: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    const response = await this.#api.webhooks.redeliver({
      params: { id: pathId(id), deliveryId: pathId(deliveryId) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 202).data
  }

  /**
   * A new secret; for 24 hours deliveries are signed with the old one too.
   * @example const { secret } = await qrctl.webhooks.rotateSecret(id)
   */
  async rotateSecret(id: string, options?: RequestOptions): Promise<{ secret: string }> {
    const response = await this.#api.webhooks.rotateSecret({
      params: { id: pathId(id) },
      requestOptions: checkRequestOptions(options),
    })
    return bodyOf(response, 201).data
  }
}
