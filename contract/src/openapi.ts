import { type AppRoute, isAppRouteOtherResponse } from '@ts-rest/core'
import { generateOpenApi } from '@ts-rest/open-api'
import type { OpenAPIObject, OperationObject, SchemaObject } from 'openapi3-ts'
import { contract } from './router.js'

const KEY = `qrk_${'A1b2C3d4E5'.repeat(4)}`
const CODE_ID = '3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4b3c2a'
const NOW = '2026-11-21T09:30:00.000Z'

const qrCodeExample = {
  id: CODE_ID,
  name: 'Spring menu',
  type: 'dynamic',
  contentType: 'url',
  content: 'https://example.com/menu',
  targetUrl: 'https://example.com/menu/spring',
  shortCode: 'aZ3kP9q',
  shortUrl: 'https://qrctl.example/r/aZ3kP9q',
  style: { foregroundColor: '#1A1A2E', backgroundColor: '#FFFFFF', errorCorrectionLevel: 'Q', margin: 4 },
  isActive: true,
  totalScans: 1284,
  externalId: 'menu-spring',
  createdAt: NOW,
  updatedAt: NOW,
  assets: {
    png: `https://qrctl.example/api/v1/qr-codes/${CODE_ID}/image.png`,
    svg: `https://qrctl.example/api/v1/qr-codes/${CODE_ID}/image.svg`,
    pdf: `https://qrctl.example/api/v1/qr-codes/${CODE_ID}/image.pdf`,
  },
}

const showcaseExample = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  qrCodeId: CODE_ID,
  title: 'Café Aurora',
  slug: 'cafe-aurora',
  description: 'Fresh pastries every morning.',
  template: 'modern',
  customColors: { primary: '#0F766E' },
  customBackgroundUrl: null,
  logoUrl: 'https://example.com/logo.png',
  socialLinks: [{ platform: 'instagram', url: 'https://instagram.com/cafe.aurora' }],
  ctaButtons: [{ label: 'Order ahead', url: 'https://example.com/order' }],
  showBranding: true,
  isActive: true,
  viewCount: 312,
  downloadCount: 9,
  createdAt: NOW,
  url: 'https://qrctl.example/s/cafe-aurora',
}

/** Request and response examples of the main operations, by `METHOD path`. */
const EXAMPLES: Record<string, { request?: unknown; response?: [number, unknown] }> = {
  'GET /api/v1/qr-codes': { response: [200, { data: [qrCodeExample], total: 1, limit: 50, offset: 0 }] },
  'POST /api/v1/qr-codes': {
    request: {
      name: 'Spring menu',
      contentType: 'url',
      content: 'https://example.com/menu',
      type: 'dynamic',
    },
    response: [201, { data: qrCodeExample }],
  },
  'GET /api/v1/qr-codes/{id}': { response: [200, { data: qrCodeExample }] },
  'PATCH /api/v1/qr-codes/{id}': {
    request: { targetUrl: 'https://example.com/menu/spring' },
    response: [200, { data: qrCodeExample }],
  },
  'POST /api/v1/qr-codes/batch': {
    request: {
      codes: [
        { name: 'Table 1', contentType: 'url', content: 'https://example.com/t/1', type: 'dynamic' },
        { name: 'Guest wifi', contentType: 'wifi', content: '{"ssid":"Cafe","password":"croissant42"}' },
        { name: 'Broken', contentType: 'url', content: 'not a url' },
      ],
    },
    response: [
      201,
      {
        data: {
          created: 2,
          errors: ['codes[2].content: url content must be an absolute http:// or https:// URL'],
          items: [qrCodeExample],
        },
      },
    ],
  },
  'GET /api/v1/qr-codes/{id}/analytics': {
    response: [
      200,
      {
        data: {
          totalEvents: 3,
          uniqueVisitors: 2,
          eventsByDay: [
            { date: '2026-11-20', count: 1 },
            { date: '2026-11-21', count: 2 },
          ],
          topDevices: [{ name: 'mobile', count: 3 }],
          topBrowsers: [
            { name: 'Mobile Safari', count: 2 },
            { name: 'Chrome', count: 1 },
          ],
          topOs: [
            { name: 'iOS', count: 2 },
            { name: 'Android', count: 1 },
          ],
          topCountries: [{ name: 'DE', count: 3 }],
          topCities: [{ name: 'Berlin', count: 3 }],
          topReferrers: [{ name: 'direct', count: 3 }],
        },
      },
    ],
  },
  'POST /api/v1/showcases': {
    request: { qrCodeId: CODE_ID, title: 'Café Aurora', template: 'modern' },
    response: [201, { data: showcaseExample }],
  },
  'GET /api/v1/showcases/{id}': { response: [200, { data: showcaseExample }] },
  'POST /api/v1/api-keys': {
    request: { name: 'ci', environment: 'staging', scope: 'read' },
    response: [
      201,
      {
        data: {
          id: '0b6f4c1d-2e3a-4f5b-8c7d-9e0f1a2b3c4d',
          name: 'ci',
          environment: 'staging',
          scope: 'read',
          prefix: KEY.slice(0, 8),
          lastFour: KEY.slice(-4),
          createdAt: NOW,
          lastUsedAt: null,
          expiresAt: null,
          secret: KEY,
        },
      },
    ],
  },
}

const errorExample = {
  error: 'validation_error',
  details: {
    message: 'Invalid request body',
    issues: [{ path: 'targetUrl', message: 'Must be an absolute http:// or https:// URL' }],
  },
}

function addExamples(operation: OperationObject, key: string): OperationObject {
  const example = EXAMPLES[key]
  const requestBody = operation.requestBody
  const requestMedia =
    requestBody && 'content' in requestBody ? requestBody.content['application/json'] : undefined
  if (requestMedia && example?.request !== undefined) requestMedia.example = example.request
  if (example?.response) {
    const [status, body] = example.response
    const media = operation.responses[String(status)]?.content?.['application/json']
    if (media) media.example = body
  }
  const badRequest = operation.responses['400']?.content?.['application/json']
  if (badRequest) badRequest.example = errorExample
  return operation
}

/** ts-rest leaves the content of non-JSON responses out; images are binary bodies of their own type. */
function documentBinary(operation: OperationObject, route: AppRoute): OperationObject {
  for (const [status, response] of Object.entries(route.responses)) {
    if (isAppRouteOtherResponse(response) && operation.responses[status]) {
      operation.responses[status].content = {
        [response.contentType]: { schema: { type: 'string', format: 'binary' } },
      }
    }
  }
  return operation
}

/** The batch body is checked item by item at run time; document its items as CreateQrCode. */
function documentBatchItems(doc: OpenAPIObject): void {
  const create = doc.paths['/api/v1/qr-codes']?.post?.requestBody?.content?.['application/json']
    ?.schema as SchemaObject
  const batch = doc.paths['/api/v1/qr-codes/batch']?.post?.requestBody?.content?.['application/json']
    ?.schema as SchemaObject
  const codes = batch?.properties?.codes as SchemaObject | undefined
  if (create && codes) codes.items = structuredClone(create)
}

/** The OpenAPI 3 document of the API, generated from the contract. */
export function buildOpenApi(): OpenAPIObject {
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'qrctl API',
        version: '1.0.0',
        description:
          'Create, manage and track static and dynamic QR codes and their showcase pages. Every request carries `Authorization: Bearer qrk_…`. Errors answer `{ error, details }`. 100 requests per minute per key; see the X-RateLimit-* headers.',
      },
      servers: [{ url: 'http://localhost:3000', description: 'Local server (npm start)' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: qrk_ followed by 40 characters',
          },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    {
      setOperationId: 'concatenated-path',
      operationMapper: (operation, route) =>
        addExamples(
          documentBinary(operation, route),
          `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
        ),
    },
  )
  documentBatchItems(doc)
  return doc
}
