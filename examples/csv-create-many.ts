// Create QR codes from a CSV file, 100 per request, with progress and per-row errors.
// Run: QRCTL_API_KEY=qrk_… npx tsx examples/csv-create-many.ts examples/codes.csv
// Columns: name, contentType, content, and optionally type and targetUrl.
import { readFile } from 'node:fs/promises'
import type { CreateQrCodeParams } from '@qrctl/sdk'
import { parse } from 'csv-parse/sync'
import { clientFromEnv } from './client.js'

type Row = Record<string, string>

function toCode(row: Row): CreateQrCodeParams {
  return {
    name: row.name ?? '',
    contentType: row.contentType as CreateQrCodeParams['contentType'],
    content: row.content ?? '',
    ...(row.type ? { type: row.type as CreateQrCodeParams['type'] } : {}),
    ...(row.targetUrl ? { targetUrl: row.targetUrl } : {}),
  }
}

const file = process.argv[2] ?? new URL('codes.csv', import.meta.url)
const rows: Row[] = parse(await readFile(file, 'utf8'), { columns: true, skip_empty_lines: true, trim: true })
const codes = rows.map(toCode)

const qrctl = clientFromEnv()
const result = await qrctl.qrCodes.createMany(codes, {
  // Re-running the same file within 24 hours with the same prefix creates nothing twice.
  ...(process.env.QRCTL_IMPORT_ID ? { idempotencyKeyPrefix: process.env.QRCTL_IMPORT_ID } : {}),
  onProgress: ({ done, total, created, failed }) =>
    console.error(`${done}/${total} sent, ${created} created, ${failed} failed`),
})

console.log(`Created ${result.created} of ${codes.length} codes.`)
for (const error of result.errors) {
  // `codes[7].content: …` is row 7 of the file (0-based, after the header).
  const row = /^codes\[(\d+)\]/.exec(error)?.[1]
  console.log(`  row ${row === undefined ? '?' : Number(row) + 1}: ${error}`)
}
for (const code of result.items.filter((item) => item.type === 'dynamic')) {
  console.log(`  ${code.name}: ${code.shortUrl}`)
}

await qrctl.close()
