import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type QrCode, Qrctl } from '@qrctl/sdk'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, plain, runCli, tempHome } from './support/cli.js'

let server: TestServer
let home: Home
let env: Record<string, string>
let sdk: Qrctl

beforeAll(async () => {
  buildCli()
  server = await startServer()
}, 180_000)
afterAll(async () => {
  await sdk?.close()
  await server.close()
  home?.cleanup()
})

beforeEach(async () => {
  home?.cleanup()
  home = tempHome()
  const account = await server.createAccount()
  await sdk?.close()
  sdk = new Qrctl({ apiKey: account.apiKey, baseUrl: server.baseUrl })
  env = apiEnv(home, server, account.apiKey)
})

const MISSING = '00000000-0000-4000-8000-000000000000'

async function dynamic(name: string, tags: string[] = []): Promise<QrCode> {
  return sdk.qrCodes.create({
    name,
    contentType: 'url',
    content: 'https://example.com/m',
    type: 'dynamic',
    tags,
  })
}

describe('qrctl list with filters', () => {
  it('filters by --tag (every one), --search, --active/--inactive and orders by --sort', async () => {
    const a = await dynamic('Alpha table', ['spring', 'menu'])
    const b = await dynamic('beta table', ['spring'])
    const c = await dynamic('Gamma', ['spring', 'menu'])
    await sdk.qrCodes.update(c.id, { isActive: false })
    const ids = async (args: string[]) => {
      const res = await runCli(['list', ...args, '--ids'], { env })
      expect(res.code, res.stderr).toBe(0)
      return res.stdout.split('\n').filter(Boolean)
    }
    expect(await ids(['--tag', 'spring', '--tag', 'MENU', '--sort', 'name'])).toEqual([a.id, c.id])
    expect(await ids(['--search', 'TABLE', '--sort=-name'])).toEqual([b.id, a.id])
    expect(await ids(['--inactive'])).toEqual([c.id])
    expect(await ids(['--active', '--sort', 'name'])).toEqual([a.id, b.id])
    const json = await runCli(['list', '--tag', 'menu', '--sort', 'createdAt', '--json'], { env })
    expect(JSON.parse(json.stdout).map((code: QrCode) => [code.id, code.tags])).toEqual([
      [a.id, ['menu', 'spring']],
      [c.id, ['menu', 'spring']],
    ])
  })

  it('prints every id of every page with --ids, and refuses a bad --sort or a bad tag', async () => {
    const made = []
    for (let i = 0; i < 3; i++) made.push((await dynamic(`c${i}`, ['x'])).id)
    const res = await runCli(['list', '--tag', 'x', '--ids', '--sort', 'createdAt'], { env })
    expect(res.stdout).toBe(`${made.join('\n')}\n`)
    const sort = await runCli(['list', '--sort', 'scans'], { env })
    expect(sort.code).toBe(2)
    expect(sort.stdout).toBe('')
    const tag = await runCli(['list', '--tag', 'no!'], { env })
    expect(tag.code).toBe(1)
    expect(plain(tag.stderr)).toContain('tag')
  })
})

describe('qrctl bulk and qrctl tag', () => {
  it('deactivates what `list --tag --ids` prints, read from stdin', async () => {
    const a = await dynamic('a', ['spring'])
    const b = await dynamic('b', ['spring'])
    const other = await dynamic('c', ['autumn'])
    const listed = await runCli(['list', '--tag', 'spring', '--ids'], { env })
    const res = await runCli(['bulk', 'deactivate', '-'], { env, input: listed.stdout })
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toBe('')
    expect(plain(res.stderr)).toContain('Deactivated 2 codes')
    for (const code of [a, b]) expect((await sdk.qrCodes.get(code.id)).isActive).toBe(false)
    expect((await sdk.qrCodes.get(other.id)).isActive).toBe(true)
    const back = await runCli(['bulk', 'activate', a.id, b.id, '--json'], { env })
    expect(JSON.parse(back.stdout)).toEqual({ updated: 2, errors: [] })
  })

  it('reports ids it did not change by their position and exits 1', async () => {
    const a = await dynamic('a')
    const res = await runCli(['bulk', 'deactivate', a.id, MISSING], { env })
    expect(res.code).toBe(1)
    expect(plain(res.stderr)).toContain('ids[1]: not found')
    expect((await sdk.qrCodes.get(a.id)).isActive).toBe(false)
  })

  it('deletes only with --yes when stdin is not a terminal, and restores', async () => {
    const a = await dynamic('a')
    const refused = await runCli(['bulk', 'delete', a.id], { env })
    expect(refused.code).toBe(2)
    expect(plain(refused.stderr)).toContain('--yes')
    expect((await sdk.qrCodes.list()).total).toBe(1)
    const deleted = await runCli(['bulk', 'delete', '-', '--yes', '--json'], { env, input: `${a.id}\n` })
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: 1, errors: [] })
    const restored = await runCli(['bulk', 'restore', a.id], { env })
    expect(restored.code, restored.stderr).toBe(0)
    expect((await sdk.qrCodes.list()).total).toBe(1)
  })

  it('splits more than 100 ids into several requests and numbers errors across them', async () => {
    const a = await dynamic('a')
    const ids = [...Array.from({ length: 150 }, () => a.id), MISSING]
    const res = await runCli(['bulk', 'deactivate', '-'], { env, input: ids.join('\n') })
    expect(res.code).toBe(1)
    expect(plain(res.stderr)).toContain('ids[150]: not found')
  })

  it('refuses an argument that is not an id, before any request', async () => {
    const res = await runCli(['bulk', 'activate', 'nope'], { env })
    expect(res.code).toBe(2)
    expect(plain(res.stderr)).toContain("Not a QR code id: 'nope'")
  })

  it('adds and removes a tag on many codes, and lists tags with counts', async () => {
    const a = await dynamic('a', ['old'])
    const b = await dynamic('b')
    const added = await runCli(['tag', 'add', 'Spring', a.id, b.id], { env })
    expect(added.code, added.stderr).toBe(0)
    expect((await sdk.qrCodes.get(b.id)).tags).toEqual(['spring'])
    const listed = await runCli(['tag', 'list'], { env })
    expect(listed.stdout).toBe('old\t1\nspring\t2\n')
    const removed = await runCli(['tag', 'remove', 'old', '-'], { env, input: `${a.id} ${b.id}` })
    expect(removed.code).toBe(0)
    expect(plain(removed.stderr)).toContain('Untagged 1 code')
    expect((await sdk.qrCodes.get(a.id)).tags).toEqual(['spring'])
  })

  it('shows tags as a table on a terminal, and says so when there are none', async () => {
    const none = await runCli(['tag', 'list'], { env, tty: 'both' })
    expect(none.code).toBe(0)
    expect(plain(none.stdout)).toContain('No tags yet.')
    await dynamic('a', ['spring'])
    const res = await runCli(['tag', 'list'], { env, tty: 'stdout' })
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toMatch(/TAG\s+CODES\n\s*spring\s+1/)
    expect(res.stderr).toBe('')
  })

  it('shows a code’s tags in qrctl get on a terminal', async () => {
    const code = await dynamic('a', ['spring', 'table 4'])
    const res = await runCli(['get', code.id], { env, tty: 'stdout' })
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toMatch(/Tags\s+spring, table 4/)
  })

  it('tags batch rows from the CSV `tags` column, ;-separated, and names the column of a bad tag', async () => {
    const file = join(home.dir, 'codes.csv')
    writeFileSync(
      file,
      'name,contentType,content,tags\nOne,text,hello,Spring; menu\nTwo,text,bye,\nThree,text,x,bad!\n',
    )
    const res = await runCli(['batch', file], { env })
    expect(res.code).toBe(1)
    expect(plain(res.stderr)).toMatch(/codes\.csv:4: tags: A tag holds only/)
    const codes = (await sdk.qrCodes.list({ sort: 'name' })).data
    expect(codes.map((c) => [c.name, c.tags])).toEqual([
      ['One', ['menu', 'spring']],
      ['Two', []],
    ])
  })
})
