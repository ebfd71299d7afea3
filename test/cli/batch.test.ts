import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type QrCode, Qrctl } from '@qrctl/sdk'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { holdIdempotencyKey } from '../sdk/live.js'
import { startServer, type TestServer } from '../support/server.js'
import { apiEnv, buildCli, type Home, killGroup, plain, runCli, startCli, tempHome } from './support/cli.js'
import { startProxy } from './support/proxy.js'

let server: TestServer
let home: Home
let env: Record<string, string>
let accountId: string
let sdk: Qrctl

beforeAll(async () => {
  buildCli()
  server = await startServer()
}, 180_000)
afterAll(() => server.close())

beforeEach(async () => {
  home = tempHome()
  const account = await server.createAccount()
  accountId = account.accountId
  sdk = new Qrctl({ apiKey: account.apiKey, baseUrl: server.baseUrl })
  env = apiEnv(home, server, account.apiKey)
})
afterEach(async () => {
  await sdk.close()
  home.cleanup()
})

const HEADER = 'name,content_type,content,type,target_url,foreground_color,error_correction_level,margin'

/** One valid row per index: static and dynamic, with and without style. */
function row(i: number): string {
  if (i % 3 === 0) return `code ${i},url,https://example.com/p/${i},dynamic,,,,`
  if (i % 3 === 1) return `code ${i},text,hello ${i},static,,#1A1A2E,Q,2`
  return `code ${i},url,https://example.com/s/${i},,,,,`
}

/** `rows` data rows, each on its own line (data row i is on line i + 2); `bad` replaces some. */
function csv(rows: number, bad: Record<number, string> = {}): string {
  const lines = [HEADER]
  for (let i = 0; i < rows; i++) lines.push(bad[i] ?? row(i))
  return `${lines.join('\n')}\n`
}

function writeCsv(name: string, text: string): string {
  const file = join(home.dir, name)
  writeFileSync(file, text)
  return file
}

async function total(): Promise<number> {
  return (await sdk.qrCodes.list({ limit: 1 })).total
}

async function allCodes(): Promise<QrCode[]> {
  const codes: QrCode[] = []
  for await (const code of sdk.qrCodes.listAll()) codes.push(code)
  return codes
}

function readResults(file: string): string[][] {
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => line.split(','))
}

/** Rows 16, 503 and 997 (lines 18, 505 and 999) are each invalid in a different way. */
const BAD = {
  16: 'bad url,url,not a url,,,,,',
  503: 'static with target,url,https://example.com/x,static,https://example.com/y,,,',
  997: 'low contrast,text,hi,,,#EEEEEE,,',
}

describe('a 1,000-row CSV with 3 invalid rows', () => {
  it('creates exactly the 997 valid rows, reports the 3 by line number, writes --out, exits 1', async () => {
    const file = writeCsv('codes.csv', csv(1000, BAD))
    const out = join(home.dir, 'results.csv')
    const res = await runCli(['batch', file, '--out', out], { env, timeoutMs: 120_000 })
    expect(res.code).toBe(1)

    expect(await total()).toBe(997)
    const codes = await allCodes()
    expect(new Set(codes.map((c) => c.name)).size).toBe(997)
    for (const name of ['bad url', 'static with target', 'low contrast'])
      expect(codes.some((c) => c.name === name)).toBe(false)

    expect(res.stderr).toContain('3 of 1000 rows are invalid:')
    expect(res.stderr).toContain(
      `${file}:18: content: url content must be an absolute http:// or https:// URL`,
    )
    expect(res.stderr).toContain(
      `${file}:505: target_url: A static code encodes its content and cannot have a targetUrl`,
    )
    expect(res.stderr).toContain(`${file}:999: foreground_color: Contrast between #EEEEEE and #FFFFFF`)
    expect(res.stderr).toContain('997 created, 3 failed (lines 18, 505, 999).')
    const progress = res.stderr.split('\n').filter((l) => l.startsWith('batch '))
    expect(progress).toHaveLength(10)
    for (const line of progress) expect(line).toMatch(/^batch \d+\/10: lines \d+–\d+: \d+ created, 0 failed$/)
    expect(res.stderr).not.toContain('replayed')

    const results = readResults(out)
    expect(results[0]).toEqual([
      'line',
      'status',
      'id',
      'name',
      'shortCode',
      'shortUrl',
      'error',
      'externalId',
    ])
    expect(results).toHaveLength(1001)
    const byLine = new Map(results.slice(1).map((r) => [Number(r[0]), r]))
    expect(byLine.get(18)?.[1]).toBe('failed')
    expect(byLine.get(505)?.[1]).toBe('failed')
    expect(byLine.get(999)?.[1]).toBe('failed')
    const created = results.slice(1).filter((r) => r[1] === 'created')
    expect(created).toHaveLength(997)
    const ids = new Map(codes.map((c) => [c.id, c]))
    for (const [line, , id, name, shortCode, shortUrl] of created) {
      const code = ids.get(id!)
      expect(code?.name, `line ${line}`).toBe(name)
      expect(code?.shortCode ?? '').toBe(shortCode)
      expect(code?.shortUrl ?? '').toBe(shortUrl)
    }
    // Data row i sits on line i + 2; row 3 is dynamic.
    expect(byLine.get(5)?.[4]).toMatch(/^\w{7}$/)

    // Piped stdout carries the same results, tab-separated.
    expect(res.stdout.trimEnd().split('\n')).toHaveLength(1000)
  }, 180_000)

  it('--dry-run checks every row, sends nothing and reports the same lines', async () => {
    const file = writeCsv('codes.csv', csv(1000, BAD))
    const res = await runCli(['batch', file, '--dry-run'], { env })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain(`${file}:505: target_url:`)
    expect(res.stderr).toContain('Dry run: 997 of 1000 rows are valid; nothing was sent.')
    expect(await total()).toBe(0)
    const valid = await runCli(['batch', writeCsv('ok.csv', csv(50)), '--dry-run'], { env })
    expect(valid.code).toBe(0)
    expect(await total()).toBe(0)
  })
})

describe('reading the CSV', () => {
  it('reads stdin, CRLF line ends and quoted fields across lines, numbering rows by their first line', async () => {
    const vcard = 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada Lovelace\r\nEND:VCARD'
    const text = [
      'name,contentType,content,type',
      `Ada,vcard,"${vcard}",`,
      '',
      '"Menu, main",url,https://example.com/menu,dynamic',
      'Broken,email,nobody,',
      'Short,url',
    ].join('\r\n')
    const res = await runCli(['batch', '-', '--json'], { env, input: text })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('stdin:8: content: email content must be an address')
    expect(res.stderr).toContain('stdin:9: row: has 2 fields; the header has 4')
    const report = JSON.parse(res.stdout) as {
      created: number
      failed: number
      rows: { line: number; status: string; code?: QrCode; errors?: string[] }[]
    }
    expect(report.created).toBe(2)
    expect(report.failed).toBe(2)
    expect(report.rows.map((r) => [r.line, r.status])).toEqual([
      [2, 'created'],
      [7, 'created'],
      [8, 'failed'],
      [9, 'failed'],
    ])
    expect(report.rows[0]?.code?.content).toContain('FN:Ada Lovelace')
    expect(report.rows[1]?.code).toMatchObject({ name: 'Menu, main', type: 'dynamic' })
  })

  it('stops before sending anything at an unknown or missing column (exit 1)', async () => {
    const unknown = await runCli(
      ['batch', writeCsv('a.csv', 'name,contentType,content,colour\na,url,https://a.example,red\n')],
      { env },
    )
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("Unknown CSV column 'colour'")
    const missing = await runCli(['batch', writeCsv('b.csv', 'name,content\na,https://a.example\n')], { env })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('lacks the column contentType')
    expect(await total()).toBe(0)
  })

  it('exits 1 for a file that does not exist', async () => {
    const res = await runCli(['batch', join(home.dir, 'nope.csv')], { env })
    expect(res).toMatchObject({ code: 1, stdout: '' })
    expect(res.stderr).toContain('No such file')
  })

  it('exits 4 on a refused key before uploading anything', async () => {
    const res = await runCli(['batch', writeCsv('c.csv', csv(10))], {
      env: { ...env, QRCTL_API_KEY: `qrk_${'Q'.repeat(40)}` },
    })
    expect(res.code).toBe(4)
    expect(res.stderr).toContain('qrctl login')
  })
})

describe('resuming', () => {
  /** Runs through a proxy that loses the server's answer to batch 3, kills the CLI once batch 3 is done server-side. */
  async function interruptAtBatch3(file: string, signal: 'SIGKILL' | 'SIGINT') {
    const proxy = await startProxy(server.baseUrl, (n) => (n === 3 ? 'lose-answer' : 'pass'))
    const cli = startCli(['batch', file], { env: { ...env, QRCTL_BASE_URL: proxy.url } })
    await proxy.answered(3)
    if (signal === 'SIGKILL') killGroup(cli.pid)
    else process.kill(cli.pid!, 'SIGINT')
    const res = await cli.done
    await proxy.close()
    return res
  }

  it('after a crash, re-running the same file finishes it without a duplicate, skipping finished batches', async () => {
    const file = writeCsv('codes.csv', csv(1000))
    const killed = await interruptAtBatch3(file, 'SIGKILL')
    expect(killed.code).toBe(null)
    // Batch 3 was created on the server although its answer never arrived.
    expect(await total()).toBe(300)

    const out = join(home.dir, 'results.csv')
    const res = await runCli(['batch', file, '--out', out], { env, timeoutMs: 120_000 })
    expect(res.code).toBe(0)
    expect(res.stderr).toContain(`Resuming ${file}: 2 of 10 batches were finished earlier.`)
    expect(res.stderr).toContain('batch 1/10: lines 2–101: 100 created, 0 failed (done in an earlier run)')
    // Its answer was lost, so it was sent again and the server replayed it.
    expect(res.stderr).toContain(
      'batch 3/10: lines 202–301: 100 created, 0 failed (replayed by the server)\n',
    )
    expect(res.stderr).toContain('batch 4/10: lines 302–401: 100 created, 0 failed\n')
    expect(res.stderr).toContain('1 of 10 batches (100 rows) were replayed by the server')
    expect(res.stderr).toContain('1000 created, 0 failed.')
    const codes = await allCodes()
    expect(codes).toHaveLength(1000)
    expect(new Set(codes.map((c) => c.name)).size).toBe(1000)
    const results = readResults(out).slice(1)
    expect(results.filter((r) => r[1] === 'created')).toHaveLength(1000)
    expect(new Set(results.map((r) => r[2]))).toEqual(new Set(codes.map((c) => c.id)))
    // Finished: the state file is gone.
    expect(readdirSync(join(home.stateDir, 'qrctl', 'batches'))).toEqual([])
  }, 180_000)

  it('without the state file, the idempotency keys alone replay finished batches from the server', async () => {
    const file = writeCsv('codes.csv', csv(1000))
    await interruptAtBatch3(file, 'SIGKILL')
    rmSync(home.stateDir, { recursive: true, force: true })
    const res = await runCli(['batch', file], { env, timeoutMs: 120_000 })
    expect(res.code).toBe(0)
    expect(res.stderr).not.toContain('Resuming')
    expect(res.stderr).toContain('3 of 10 batches (300 rows) were replayed by the server')
    expect(await total()).toBe(1000)
    expect(new Set((await allCodes()).map((c) => c.name)).size).toBe(1000)
    // And once more: a file that was finished creates nothing new.
    const again = await runCli(['batch', file], { env, timeoutMs: 120_000 })
    expect(again.code).toBe(0)
    expect(again.stderr).toContain('10 of 10 batches (1000 rows) were replayed by the server')
    expect(await total()).toBe(1000)
  }, 180_000)

  it('waits for a batch the server is still working on, then reports it replayed', async () => {
    const text = csv(300)
    const file = writeCsv('codes.csv', text)
    expect((await runCli(['batch', file], { env })).code).toBe(0)
    // As if the run that sent batch 2 had been killed while the server was still creating it.
    const fileHash = createHash('sha256').update(text).digest('hex').slice(0, 16)
    const held = await holdIdempotencyKey(server, accountId, `batch-${fileHash}-102-201`)
    const conflicts: number[] = []
    const proxy = await startProxy(
      server.baseUrl,
      () => 'pass',
      async (n, status) => {
        if (status !== 409) return
        conflicts.push(n)
        await held.finish()
      },
    )
    const res = await runCli(['batch', file], { env: { ...env, QRCTL_BASE_URL: proxy.url } })
    await proxy.close()
    expect(res.code).toBe(0)
    // The 409 for batch 2 (request 2) was retried by the SDK: request 3 is its retry.
    expect(conflicts).toEqual([2])
    expect(proxy.batches).toBe(4)
    for (const lines of ['2–101', '102–201', '202–301'])
      expect(res.stderr).toContain(`lines ${lines}: 100 created, 0 failed (replayed by the server)\n`)
    expect(res.stderr).toContain('3 of 3 batches (300 rows) were replayed by the server')
    expect(res.stderr).toContain('300 created, 0 failed.')
    expect(await total()).toBe(300)
  })

  it('Ctrl-C stops the upload with exit 2 and says how to resume', async () => {
    const file = writeCsv('codes.csv', csv(500))
    const res = await interruptAtBatch3(file, 'SIGINT')
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('Interrupted after 200 of 500 rows')
    expect(res.stderr).toContain('Run the same command again to resume')
    const resumed = await runCli(['batch', file], { env })
    expect(resumed.code).toBe(0)
    expect(await total()).toBe(500)
  }, 120_000)
})

describe('on a terminal', () => {
  it('draws a progress bar on stderr; stdout (a file) gets the tab-separated results', async () => {
    const file = writeCsv('codes.csv', csv(250))
    const res = await runCli(['batch', file], { env, tty: 'stderr' })
    expect(res.code).toBe(0)
    const text = plain(res.stderr)
    expect(text).toContain('Uploading')
    expect(text).toContain('250/250 rows | 250 created, 0 failed')
    expect(text).not.toMatch(/^batch \d/m)
    expect(res.stdout.trimEnd().split('\n')).toHaveLength(250)
    expect(res.stdout).not.toContain('\u001b')
    expect(text).not.toContain('replayed')

    const again = await runCli(['batch', file], { env, tty: 'stderr' })
    expect(again.code).toBe(0)
    expect(plain(again.stderr)).toContain('3 of 3 batches (250 rows) were replayed by the server')
    expect(again.stdout.trimEnd().split('\n')).toHaveLength(250)
    expect(await total()).toBe(250)
  })
})

describe('re-uploads never duplicate', () => {
  /** Five rows the CLI refuses; data rows 10, 70, 150, 220 and 299. */
  const FIVE_BAD = {
    10: 'bad 10,url,not a url,,,,,',
    70: 'bad 70,text,hi,,,#EEEEEE,,',
    150: 'bad 150,url,https://example.com/x,static,https://example.com/y,,,',
    220: 'bad 220,email,not-an-email,,,,,',
    299: 'bad 299,text,hi,,,,X,',
  }

  it('after fixing 5 bad rows of a 300-row CSV in place, a re-run creates only those 5 and reports the rest as uploaded before', async () => {
    const file = writeCsv('codes.csv', csv(300, FIVE_BAD))
    const out = join(home.dir, 'results.csv')
    const first = await runCli(['batch', file, '--out', out], { env, timeoutMs: 120_000 })
    expect(first.code).toBe(1)
    expect(first.stderr).toContain('295 created, 5 failed (lines 12, 72, 152, 222, 301).')
    const firstIds = new Map(
      readResults(out)
        .slice(1)
        .map((r) => [r[0], r[2]]),
    )
    expect(await total()).toBe(295)

    // Fixed in place: the same file name, the same lines, five rows changed.
    writeCsv('codes.csv', csv(300))
    const second = await runCli(['batch', file, '--out', out], { env, timeoutMs: 120_000 })
    expect(second.stderr).toContain('5 created, 295 uploaded before (not created again), 0 failed.')
    expect(second.code).toBe(0)
    expect(second.stderr).not.toContain('rejected')
    expect(await total()).toBe(300)
    const codes = await allCodes()
    expect(new Set(codes.map((c) => c.name)).size).toBe(300)

    const results = readResults(out).slice(1)
    const byStatus = (status: string) => results.filter((r) => r[1] === status)
    expect(byStatus('created').map((r) => Number(r[0]))).toEqual([12, 72, 152, 222, 301])
    expect(byStatus('exists')).toHaveLength(295)
    // An "uploaded before" row names the code the first run created for it.
    for (const r of byStatus('exists')) expect(r[2]).toBe(firstIds.get(r[0]))
    // Piped stdout says the same, one line per row.
    expect(second.stdout.split('\n').filter((l) => l.split('\t')[1] === 'exists')).toHaveLength(295)
  }, 180_000)

  it('--retry-failed RESULTS.csv sends only the rows that failed', async () => {
    const file = writeCsv('codes.csv', csv(300, FIVE_BAD))
    const out = join(home.dir, 'results.csv')
    expect((await runCli(['batch', file, '--out', out], { env, timeoutMs: 120_000 })).code).toBe(1)
    writeCsv('codes.csv', csv(300))
    const out2 = join(home.dir, 'results2.csv')
    const retry = await runCli(['batch', file, '--retry-failed', out, '--out', out2], { env })
    expect(retry.code).toBe(0)
    expect(retry.stderr).toContain('Retrying the 5 rows that failed in')
    expect(retry.stderr).toContain('batch 1/1: lines 12–301: 5 created, 0 failed')
    expect(retry.stderr).toContain('5 created, 0 failed.')
    expect(
      readResults(out2)
        .slice(1)
        .map((r) => [Number(r[0]), r[1]]),
    ).toEqual([12, 72, 152, 222, 301].map((line) => [line, 'created']))
    expect(await total()).toBe(300)
  }, 180_000)

  it('refuses a --retry-failed file that is not a results file', async () => {
    const file = writeCsv('codes.csv', csv(3))
    const res = await runCli(['batch', file, '--retry-failed', file], { env })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('is not a results file: it needs the columns line and status')
    expect(res.stdout).toBe('')
    expect(await total()).toBe(0)
  })

  it('takes externalId from an external_id column, across file names', async () => {
    const rows = 'name,content_type,content,external_id\nA,text,a,sku-1\nB,text,b,sku-2\n'
    const first = await runCli(['batch', writeCsv('one.csv', rows)], { env })
    expect(first.code).toBe(0)
    const codes = await allCodes()
    expect(codes.map((c) => c.externalId).sort()).toEqual(['sku-1', 'sku-2'])
    const second = await runCli(['batch', writeCsv('two.csv', `${rows}C,text,c,sku-3\n`), '--json'], { env })
    expect(second.code).toBe(0)
    const report = JSON.parse(second.stdout)
    expect(report).toMatchObject({ created: 1, existing: 2, failed: 0 })
    expect(report.rows[0]).toMatchObject({ line: 2, status: 'exists', externalId: 'sku-1' })
    expect(await total()).toBe(3)
  })
})

describe('Ctrl-C at any moment of a batch', () => {
  it('while connecting: exit 2 with the resume hint, nothing sent', async () => {
    const file = writeCsv('codes.csv', csv(10))
    // A server that accepts the request and never answers: the CLI waits in "Connecting…".
    let arrived: () => void = () => undefined
    const requested = new Promise<void>((resolve) => {
      arrived = resolve
    })
    const hole = createServer(() => arrived())
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve))
    const { port } = hole.address() as AddressInfo
    try {
      const cli = startCli(['batch', file], { env: { ...env, QRCTL_BASE_URL: `http://127.0.0.1:${port}` } })
      await requested
      process.kill(cli.pid!, 'SIGINT')
      const res = await cli.done
      expect(res.code).toBe(2)
      expect(res.stderr).toContain('Interrupted before any row was sent')
      expect(res.stderr).toContain('Run the same command again to resume')
      expect(res.stderr).not.toMatch(/\n\s+at /)
      expect(res.stdout).toBe('')
    } finally {
      hole.closeAllConnections()
      await new Promise((resolve) => hole.close(resolve))
    }
  })

  it('while waiting for the rate-limit window: exit 2 with the resume hint', async () => {
    const limited = await server.createAccount({ rateLimitPerMinute: 2 })
    const file = writeCsv('codes.csv', csv(300))
    const cli = startCli(['batch', file], { env: apiEnv(home, server, limited.apiKey) })
    // The probe and batch 1 spend the window of 2; before batch 2 the CLI waits.
    while (!cli.stderrSoFar().includes('waiting')) await new Promise((resolve) => setTimeout(resolve, 50))
    process.kill(cli.pid!, 'SIGINT')
    const res = await cli.done
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('Interrupted after 100 of 300 rows')
    expect(res.stderr).toContain('Run the same command again to resume')
    expect(res.stdout).toBe('')
  }, 120_000)
})
