import { Qrctl } from '@qrctl/sdk'

/**
 * The client every example uses: the key from QRCTL_API_KEY, the server from QRCTL_BASE_URL
 * (default http://localhost:3000, what `npm start` runs).
 */
export function clientFromEnv(): Qrctl {
  const apiKey = process.env.QRCTL_API_KEY
  if (!apiKey) {
    console.error('Set QRCTL_API_KEY to your API key (qrk_…); `npm start` prints one on first run.')
    process.exit(1)
  }
  const baseUrl = process.env.QRCTL_BASE_URL
  return new Qrctl(baseUrl ? { apiKey, baseUrl } : { apiKey })
}
