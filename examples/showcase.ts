// Give a QR code a public landing page with links and buttons.
// Run: QRCTL_API_KEY=qrk_… npx tsx examples/showcase.ts [code-id]
import { QrctlConflictError } from '@qrctl/sdk'
import { clientFromEnv } from './client.js'

const qrctl = clientFromEnv()

const code = process.argv[2]
  ? await qrctl.qrCodes.get(process.argv[2])
  : await qrctl.qrCodes.create({
      name: 'Bakery window',
      contentType: 'url',
      content: 'https://example.com/bakery',
      type: 'dynamic',
    })

const page = await qrctl.showcases.create({
  qrCodeId: code.id,
  title: 'Corner Bakery',
  description: 'Fresh bread every morning from 7.',
  template: 'modern',
  customColors: { primary: '#8B4513', background: '#FFF8F0', text: '#2B1B0E' },
})

// Links and buttons are set after creation.
const updated = await qrctl.showcases.update(page.id, {
  socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/cornerbakery' }],
  ctaButtons: [{ label: 'Order a cake', url: 'https://example.com/bakery/cakes' }],
})
console.log(`Showcase "${updated.title}" is live at ${updated.url}`)

// Slugs are unique across the service: a taken one is a QrctlConflictError.
try {
  await qrctl.showcases.create({ qrCodeId: code.id, title: 'Copy', slug: updated.slug })
} catch (error) {
  if (!(error instanceof QrctlConflictError)) throw error
  console.log(`Slug "${updated.slug}" is taken, as expected: ${error.message}`)
}

await qrctl.close()
