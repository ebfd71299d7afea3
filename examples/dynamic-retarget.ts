// Create a dynamic QR code, then point it somewhere else: the printed code stays the same.
// Run: QRCTL_API_KEY=qrk_… npx tsx examples/dynamic-retarget.ts
import { writeFile } from 'node:fs/promises'
import { clientFromEnv } from './client.js'

const qrctl = clientFromEnv()

const code = await qrctl.qrCodes.create({
  name: 'Table tent: lunch menu',
  contentType: 'url',
  content: 'https://example.com/menu/lunch',
  type: 'dynamic',
})
console.log(`Created ${code.name}: ${code.shortUrl} -> ${code.targetUrl}`)

// Print this one: it encodes the short link, not the target.
const png = await qrctl.qrCodes.image(code.id, { format: 'png', size: 512 })
const file = process.env.QRCTL_OUTPUT ?? 'lunch-menu.png'
await writeFile(file, png)
console.log(`Saved ${png.byteLength} bytes to ${file}`)

// Evening comes: same printed code, new destination.
const retargeted = await qrctl.qrCodes.update(code.id, { targetUrl: 'https://example.com/menu/dinner' })
console.log(`Retargeted ${retargeted.shortUrl} -> ${retargeted.targetUrl}`)

await qrctl.close()
