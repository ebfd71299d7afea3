import { type QrCode, Qrctl } from '@qrctl/sdk'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, hasAnsi, hasColor, plain, runCli, tempHome } from './support/cli.js'

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

/** Every test gets an account of its own, so lists hold only what the test made. */
beforeEach(async () => {
  home?.cleanup()
  home = tempHome()
  const account = await server.createAccount()
  await sdk?.close()
  sdk = new Qrctl({ apiKey: account.apiKey, baseUrl: server.baseUrl })
  env = apiEnv(home, server, account.apiKey)
})

const MISSING = '00000000-0000-4000-8000-000000000000'
const TSV_FIELDS = 11

function tsv(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'))
}

async function createDynamic(name = 'Menu'): Promise<QrCode> {
  return sdk.qrCodes.create({
    name,
    contentType: 'url',
    content: 'https://example.com/menu',
    type: 'dynamic',
  })
}

describe('create', () => {
  it('creates a dynamic code and prints it as one tab-separated line when piped', async () => {
    const res = await runCli(
      ['create', '--name', 'Menu', '--content', 'https://example.com/menu', '--type', 'dynamic'],
      { env },
    )
    expect(res.code).toBe(0)
    expect(res.stderr).toBe('')
    const [row] = tsv(res.stdout)
    expect(row).toHaveLength(TSV_FIELDS)
    const code = await sdk.qrCodes.get(row![0]!)
    expect(row).toEqual([
      code.id,
      'Menu',
      'dynamic',
      'url',
      'https://example.com/menu',
      code.shortUrl,
      '0',
      'true',
      code.createdAt,
      'https://example.com/menu',
      '',
    ])
  })

  it('prints the SDK object with --json, style flags applied', async () => {
    const res = await runCli(
      [
        'create',
        '-n',
        'Wifi',
        '-t',
        'wifi',
        '-c',
        'WIFI:T:WPA;S:Cafe;P:espresso42;;',
        '--fg',
        '#1A1A2E',
        '--ec',
        'H',
        '--margin',
        '2',
        '--json',
      ],
      { env },
    )
    expect(res.code).toBe(0)
    const printed = JSON.parse(res.stdout) as QrCode
    expect(printed).toEqual(await sdk.qrCodes.get(printed.id))
    expect(printed).toMatchObject({
      type: 'static',
      contentType: 'wifi',
      style: { foregroundColor: '#1A1A2E', errorCorrectionLevel: 'H', margin: 2 },
    })
  })

  it('reads --content - from stdin (a vCard)', async () => {
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nEND:VCARD\n'
    const res = await runCli(['create', '-n', 'Card', '-t', 'vcard', '-c', '-', '--json'], {
      env,
      input: vcard,
    })
    expect(res.code).toBe(0)
    expect((JSON.parse(res.stdout) as QrCode).content).toBe(vcard.trimEnd())
  })

  it('exits 1 with the API’s message, the field and the request id for invalid content', async () => {
    const res = await runCli(['create', '-n', 'Bad', '-t', 'email', '-c', 'not an address'], { env })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr).toMatch(/HTTP 400 validation_error, request id \S+\)/)
    expect(res.stderr).toContain('content: email content must be an address')
  })

  it('shows the record on a terminal and a success message on its stderr', async () => {
    const res = await runCli(
      ['create', '-n', 'Menu', '-c', 'https://example.com/menu', '--type', 'dynamic'],
      { env, tty: 'both' },
    )
    expect(res.code).toBe(0)
    const text = plain(res.stdout)
    expect(text).toMatch(/Short URL +http:\/\/127\.0\.0\.1:\d+\/r\/\w{7}/)
    expect(text).toMatch(/✓ Created dynamic code [0-9a-f-]{36}/)
  })
})

describe('list', () => {
  it('prints one tab-separated record per line when piped, newest first, no header, no colour', async () => {
    const first = await createDynamic('First')
    const second = await sdk.qrCodes.create({
      name: 'Second\tname',
      contentType: 'text',
      content: 'line one\nline two',
    })
    const res = await runCli(['list'], { env })
    expect(res).toMatchObject({ code: 0, stderr: '' })
    const rows = tsv(res.stdout)
    expect(rows.map((r) => r[0])).toEqual([second.id, first.id])
    expect(rows.every((r) => r.length === TSV_FIELDS)).toBe(true)
    // Tabs and line breaks inside fields cannot split a record.
    expect(rows[0]?.[1]).toBe('Second name')
    expect(rows[0]?.[4]).toBe('line one line two')
    expect(hasAnsi(res.stdout)).toBe(false)
  })

  it('prints a table on a terminal stdout; stderr, a file, stays free of spinners and colour', async () => {
    const code = await createDynamic()
    const res = await runCli(['list'], { env, tty: 'stdout' })
    expect(res.code).toBe(0)
    const lines = plain(res.stdout).trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +NAME +TYPE +CODE +TARGET \/ CONTENT +(SCANS +)?ACTIVE/)
    expect(lines[1]).toContain(code.id)
    expect(lines[1]).toContain(code.shortCode)
    expect(lines[1]).toContain(code.targetUrl?.replace('https://', ''))
    // Fitted to the terminal's 120 columns: the less useful columns give way.
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120)
    expect(res.stdout).toContain('\u001b[1m')
    expect(res.stderr).toBe('')
  })

  it('with a terminal on stderr only: tab-separated stdout, the spinner on stderr', async () => {
    const code = await createDynamic()
    const res = await runCli(['list'], { env, tty: 'stderr' })
    expect(res.code).toBe(0)
    expect(tsv(res.stdout)[0]?.[0]).toBe(code.id)
    expect(hasAnsi(res.stdout)).toBe(false)
    expect(plain(res.stderr)).toContain('Fetching codes…')
  })

  it.each([
    ['NO_COLOR=1', { NO_COLOR: '1' }, []],
    ['TERM=dumb', { TERM: 'dumb' }, []],
    ['--no-color', {}, ['--no-color']],
  ])('has no colour on a terminal with %s', async (_, extraEnv, flags) => {
    await createDynamic()
    const res = await runCli(['list', ...flags], { env: { ...env, ...extraEnv }, tty: 'both' })
    expect(res.code).toBe(0)
    expect(res.stdout).toMatch(/ID +NAME/)
    expect(hasColor(res.stdout)).toBe(false)
  })

  it('succeeds on an empty list: exit 0, nothing on stdout; a note on a terminal', async () => {
    expect(await runCli(['list'], { env })).toMatchObject({ code: 0, stdout: '', stderr: '' })
    const json = await runCli(['list', '--json'], { env })
    expect(JSON.parse(json.stdout)).toEqual([])
    const terminal = await runCli(['list'], { env, tty: 'both' })
    expect(terminal.code).toBe(0)
    expect(plain(terminal.stdout)).toContain('No QR codes yet')
  })

  it('filters by type and pages with --limit and --offset; --json is the array of SDK objects', async () => {
    const codes: QrCode[] = []
    for (let i = 0; i < 5; i++) codes.push(await createDynamic(`d${i}`))
    await sdk.qrCodes.create({ name: 's', contentType: 'text', content: 'static' })
    const res = await runCli(['list', '--type', 'dynamic', '--limit', '2', '--offset', '1', '--json'], {
      env,
    })
    const page = JSON.parse(res.stdout) as QrCode[]
    expect(page.map((c) => c.name)).toEqual(['d3', 'd2'])
    expect(page[0]).toEqual(await sdk.qrCodes.get(codes[3]!.id))
    const terminal = await runCli(['list', '--type', 'dynamic', '--limit', '2'], { env, tty: 'both' })
    expect(plain(terminal.stdout)).toContain('Showing 1–2 of 5. Next: --offset 2, or --all.')
  })

  it('fetches every page with --all', async () => {
    const codes = Array.from({ length: 130 }, (_, i) => ({
      name: `c${i}`,
      contentType: 'text' as const,
      content: `n${i}`,
    }))
    await sdk.qrCodes.createMany(codes)
    const res = await runCli(['list', '--all'], { env })
    expect(res.code).toBe(0)
    const rows = tsv(res.stdout)
    expect(rows).toHaveLength(130)
    expect(new Set(rows.map((r) => r[0])).size).toBe(130)
    const json = JSON.parse((await runCli(['list', '--all', '--json'], { env })).stdout) as QrCode[]
    expect(json).toHaveLength(130)
  })
})

describe('get, update, restore', () => {
  it('gets one code (tab-separated, --json, and a detail view on a terminal)', async () => {
    const code = await createDynamic()
    const piped = await runCli(['get', code.id], { env })
    expect(tsv(piped.stdout)[0]?.slice(0, 3)).toEqual([code.id, 'Menu', 'dynamic'])
    expect(JSON.parse((await runCli(['get', code.id, '--json'], { env })).stdout)).toEqual(code)
    const terminal = await runCli(['get', code.id], { env, tty: 'stdout' })
    expect(plain(terminal.stdout)).toMatch(/Name +Menu\n/)
    expect(plain(terminal.stdout)).toContain(`Short URL     ${code.shortUrl}`)
  })

  it('exits 1 with not_found and the request id for an unknown code', async () => {
    const res = await runCli(['get', MISSING], { env })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr).toMatch(/HTTP 404 not_found, request id \S+\)/)
  })

  it('updates the name, target and state, and merges new style flags into the current style', async () => {
    const code = await sdk.qrCodes.create({
      name: 'Menu',
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
      style: { foregroundColor: '#112233', margin: 2 },
    })
    const res = await runCli(
      [
        'update',
        code.id,
        '--name',
        'Summer',
        '--target-url',
        'https://example.com/summer',
        '--inactive',
        '--ec',
        'Q',
        '--json',
      ],
      { env },
    )
    expect(res.code).toBe(0)
    const updated = await sdk.qrCodes.get(code.id)
    expect(JSON.parse(res.stdout)).toEqual(updated)
    expect(updated).toMatchObject({
      name: 'Summer',
      targetUrl: 'https://example.com/summer',
      isActive: false,
      style: { foregroundColor: '#112233', margin: 2, errorCorrectionLevel: 'Q' },
    })
    expect((await runCli(['update', code.id, '--active'], { env })).code).toBe(0)
    expect((await sdk.qrCodes.get(code.id)).isActive).toBe(true)
  })

  it('refuses an update with nothing to change, or --active with --inactive (exit 2)', async () => {
    const code = await createDynamic()
    expect((await runCli(['update', code.id], { env })).code).toBe(2)
    expect((await runCli(['update', code.id, '--active', '--inactive'], { env })).code).toBe(2)
  })

  it('shows the updated and the restored code on a terminal, with a success line', async () => {
    const code = await createDynamic()
    const updated = await runCli(['update', code.id, '--name', 'Renamed'], { env, tty: 'both' })
    expect(updated.code).toBe(0)
    expect(plain(updated.stdout)).toMatch(/Name +Renamed\n/)
    expect(plain(updated.stdout)).toContain(`✓ Updated ${code.id}`)
    await sdk.qrCodes.delete(code.id)
    const restored = await runCli(['restore', code.id], { env, tty: 'both' })
    expect(restored.code).toBe(0)
    expect(plain(restored.stdout)).toContain(`✓ Restored ${code.id}`)
  })

  it('restores a deleted code', async () => {
    const code = await createDynamic()
    await sdk.qrCodes.delete(code.id)
    const res = await runCli(['restore', code.id], { env })
    expect(res.code).toBe(0)
    expect(tsv(res.stdout)[0]?.[0]).toBe(code.id)
    expect((await sdk.qrCodes.get(code.id)).id).toBe(code.id)
  })
})

describe('delete', () => {
  it('needs --yes when stdin is not a terminal: exit 2 and nothing deleted', async () => {
    const code = await createDynamic()
    const res = await runCli(['delete', code.id], { env })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('--yes')
    expect((await sdk.qrCodes.get(code.id)).id).toBe(code.id)
  })

  it('deletes with --yes', async () => {
    const code = await createDynamic()
    const res = await runCli(['delete', code.id, '--yes'], { env })
    expect(res.code).toBe(0)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain(`qrctl restore ${code.id}`)
    await expect(sdk.qrCodes.get(code.id)).rejects.toMatchObject({ status: 404 })
    const json = await runCli(['delete', (await createDynamic()).id, '--yes', '--json'], { env })
    expect(JSON.parse(json.stdout)).toEqual({ success: true })
  })

  it('asks on a terminal; anything but y cancels (exit 2)', async () => {
    const code = await createDynamic('Keep me')
    const no = await runCli(['delete', code.id], {
      env,
      tty: 'both',
      answers: [{ when: /\[y\/N\]/, send: 'n\r' }],
    })
    expect(plain(no.stdout)).toContain(`Delete QR code 'Keep me' (${code.id})?`)
    expect(no.code).toBe(2)
    expect((await sdk.qrCodes.get(code.id)).id).toBe(code.id)
    const yes = await runCli(['delete', code.id], {
      env,
      tty: 'both',
      answers: [{ when: /\[y\/N\]/, send: 'y\r' }],
    })
    expect(yes.code).toBe(0)
    await expect(sdk.qrCodes.get(code.id)).rejects.toMatchObject({ status: 404 })
  })
})

describe('ids, deleted codes and the 80-column table (issue #13)', () => {
  it('takes a dynamic code’s short code wherever it takes an id', async () => {
    const code = await createDynamic('By short code')
    const got = await runCli(['get', code.shortCode!], { env })
    expect(got).toMatchObject({ code: 0, stderr: '' })
    expect(tsv(got.stdout)[0]?.[0]).toBe(code.id)
    const updated = await runCli(['update', code.shortCode!, '--target-url', 'https://example.com/new'], {
      env,
    })
    expect(updated.code).toBe(0)
    expect((await sdk.qrCodes.get(code.id)).targetUrl).toBe('https://example.com/new')
    expect((await runCli(['delete', code.shortCode!, '--yes'], { env })).code).toBe(0)
    const restored = await runCli(['restore', code.shortCode!], { env })
    expect(restored.code).toBe(0)
    expect((await sdk.qrCodes.get(code.id)).id).toBe(code.id)
  })

  it('exits 1 for a short code that names no code, and 2 for something that is neither', async () => {
    const missing = await runCli(['get', 'zzzzzzz'], { env })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('No QR code with the short code zzzzzzz')
    expect(missing.stdout).toBe('')
    const bad = await runCli(['get', 'nope'], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Not a QR code id')
  })

  it('list --deleted shows codes still restorable with when they are purged; piped, deletedAt and purgeAt come last', async () => {
    const live = await createDynamic('Live')
    const gone = await createDynamic('Gone')
    await sdk.qrCodes.delete(gone.id)
    const res = await runCli(['list', '--deleted'], { env })
    expect(res).toMatchObject({ code: 0, stderr: '' })
    const rows = tsv(res.stdout)
    expect(rows.map((r) => r[0])).toEqual([gone.id])
    const [deletedAt, purgeAt] = rows[0]!.slice(TSV_FIELDS)
    expect(Date.parse(purgeAt!) - Date.parse(deletedAt!)).toBe(30 * 86_400_000)
    expect(tsv((await runCli(['list'], { env })).stdout).map((r) => r[0])).toEqual([live.id])
    const table = await runCli(['list', '--deleted'], { env, tty: 'stdout' })
    expect(plain(table.stdout)).toMatch(/DELETED/)
    expect(plain(table.stdout)).toContain(gone.id)
  })

  it('fits 80 columns on a terminal without cutting the id, and shows where each code leads', async () => {
    const code = await sdk.qrCodes.create({
      name: 'A code with a rather long name for a narrow terminal',
      contentType: 'url',
      content: 'https://example.com/menu',
      targetUrl: 'https://shop.example.com/collections/summer-2026/dresses?utm_source=qr',
    })
    const res = await runCli(['list'], { env, tty: 'stdout', cols: 80 })
    expect(res.code).toBe(0)
    const lines = plain(res.stdout).trimEnd().split('\n')
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
    expect(lines[1]).toContain(code.id)
    expect(lines[1]).toContain(code.shortCode)
    // The URL is cut after its host, which stays whole, and keeps its end.
    expect(lines[1]).toMatch(/ shop\.example\.com\/…\S*=qr$/)
  })
})

describe('errors (issue #13.5)', () => {
  it('names the flag once for a validation error, not the API path', async () => {
    const res = await runCli(
      [
        'create',
        '--name',
        'x',
        '--content',
        'hi',
        '-t',
        'text',
        '--type',
        'static',
        '--target-url',
        'https://example.com',
      ],
      { env },
    )
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    const lines = res.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^error: --target-url: A static code encodes its content and cannot have a targetUrl/,
    )
    expect(lines[0]).toContain('HTTP 400 validation_error')
    expect(res.stderr.match(/A static code encodes/g)).toHaveLength(1)
    expect(res.stderr).not.toMatch(/^\s+targetUrl:/m)
  })

  it('lists several problems under the summary, each by its flag', async () => {
    const res = await runCli(['create', '--name', '', '--content', 'hi', '-t', 'text', '--fg', '#EEE'], {
      env,
    })
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/^ {2}--name: /m)
    expect(res.stderr).toMatch(/^ {2}--fg: Contrast between/m)
  })

  it('with --json, prints the error as one JSON object on stderr', async () => {
    const res = await runCli(['create', '--name', 'x', '--content', 'not a url', '--json'], { env })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    const body = JSON.parse(res.stderr)
    expect(body.error).toMatchObject({
      code: 'validation_error',
      status: 400,
      exitCode: 1,
      issues: [{ field: '--content', message: expect.any(String) }],
    })
    expect(typeof body.error.requestId).toBe('string')
    const missing = await runCli(['get', '00000000-0000-4000-8000-000000000000', '--json'], { env })
    expect(JSON.parse(missing.stderr).error).toMatchObject({ code: 'not_found', status: 404, exitCode: 1 })
  })

  it('says the key in QRCTL_API_KEY was refused, rather than the profile’s', async () => {
    const res = await runCli(['list'], { env: { ...env, QRCTL_API_KEY: `qrk_${'z'.repeat(40)}` } })
    expect(res.code).toBe(4)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain('The key in QRCTL_API_KEY was refused')
    expect(res.stderr).not.toContain('of profile')
  })

  it('a taken externalId names the code that holds it', async () => {
    const first = await runCli(
      ['create', '--name', 'a', '-t', 'text', '--content', 'a', '--external-id', 'ext-1'],
      { env },
    )
    expect(first.code).toBe(0)
    const id = tsv(first.stdout)[0]?.[0]
    const again = await runCli(
      ['create', '--name', 'b', '-t', 'text', '--content', 'b', '--external-id', 'ext-1'],
      { env },
    )
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`already used by QR code ${id}`)
    expect(again.stderr).toContain('HTTP 409 conflict')
    const cleared = await runCli(['update', id!, '--no-external-id'], { env })
    expect(tsv(cleared.stdout)[0]?.[10]).toBe('')
  })
})
