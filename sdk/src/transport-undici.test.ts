import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { API_KEY, ID, json, qrCode } from '../test/fake-fetch.js'
import { Qrctl } from './index.js'

const undici = vi.hoisted(() => ({ loads: 0, agents: 0 }))
vi.mock('undici', async (importOriginal) => {
  undici.loads++
  const original = await importOriginal<typeof import('undici')>()
  class CountedAgent extends original.Agent {
    constructor(...args: ConstructorParameters<typeof original.Agent>) {
      super(...args)
      undici.agents++
    }
  }
  return { ...original, Agent: CountedAgent }
})

let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_live' })
    res.end(JSON.stringify({ data: qrCode() }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('the SDK’s own fetch', () => {
  it('loads undici with the first request that needs it, not on import, and once per client', async () => {
    const own = new Qrctl({ apiKey: API_KEY, baseUrl, fetch: async () => json(200, { data: qrCode() }) })
    await own.qrCodes.get(ID)
    const unused = new Qrctl({ apiKey: API_KEY, baseUrl })
    await unused.close()
    expect(undici).toEqual({ loads: 0, agents: 0 })

    const qrctl = new Qrctl({ apiKey: API_KEY, baseUrl })
    const codes = await Promise.all([qrctl.qrCodes.get(ID), qrctl.qrCodes.get(ID)])
    expect(codes.map((code) => code.id)).toEqual([ID, ID])
    expect(await qrctl.qrCodes.get(ID)).toMatchObject({ id: ID })
    expect(qrctl.lastResponse).toMatchObject({ status: 200, requestId: 'req_live', replayed: false })
    expect(undici).toEqual({ loads: 1, agents: 1 })
    await qrctl.close()
  })
})
