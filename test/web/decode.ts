import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import jsQR from 'jsqr'
import { PNG } from 'pngjs'
import sharp from 'sharp'

/** What a PNG's QR code holds, through jsQR (a real decoder). */
export function decodePng(bytes: Uint8Array): string | undefined {
  const image = PNG.sync.read(Buffer.from(bytes))
  return jsQR.default(new Uint8ClampedArray(image.data), image.width, image.height)?.data
}

/** An SVG rasterised by sharp (librsvg) at 600 px wide, then decoded. */
export async function decodeSvg(svg: Uint8Array): Promise<string | undefined> {
  const png = await sharp(Buffer.from(svg), { density: 200 })
    .resize({ width: 600 })
    .flatten({ background: '#ffffff' })
    .png()
    .toBuffer()
  return decodePng(png)
}

/** A PDF's first page rasterised by poppler's `pdftoppm`, then decoded. */
export async function decodePdf(pdf: Uint8Array): Promise<string | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'qrctl-pdf-'))
  try {
    const file = join(dir, 'code.pdf')
    await writeFile(file, pdf)
    const png = await new Promise<Buffer>((resolve, reject) => {
      execFile(
        'pdftoppm',
        ['-png', '-r', '150', '-singlefile', file],
        { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      )
    })
    return decodePng(png)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A small logo to upload: a rounded orange square with a white ring, as PNG. */
export function logoPng(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" rx="24" fill="#d9480f"/><circle cx="60" cy="60" r="30" fill="none" stroke="#fff" stroke-width="12"/></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}
