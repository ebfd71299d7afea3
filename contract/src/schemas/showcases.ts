import { z } from 'zod'
import { contrastRatio } from '../payload/contrast.js'
import { HexColor, httpUrl, isCtaUrl, pageQuery, strictObject, Uuid } from './common.js'

export const TEMPLATES = ['minimal', 'modern', 'bold', 'professional', 'dark'] as const
export const Template = z.enum(TEMPLATES)
export type Template = z.infer<typeof Template>

/** 3–64 of a-z, 0-9 and '-', not starting or ending with '-'; unique across the service. */
export const Slug = z
  .string()
  .min(3, 'Must be 3–64 characters')
  .max(64, 'Must be 3–64 characters')
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'Use a-z, 0-9 and -, not starting or ending with -')

/** Normal text on a showcase page must meet WCAG AA. */
export const MIN_TEXT_CONTRAST = 4.5

export const CustomColors = strictObject({
  primary: HexColor.optional().describe('Buttons and accents'),
  secondary: HexColor.optional(),
  background: HexColor.optional(),
  text: HexColor.optional(),
}).superRefine((colors, ctx) => {
  if (colors.text && colors.background && contrastRatio(colors.text, colors.background) < MIN_TEXT_CONTRAST) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['text'],
      message: `Text ${colors.text} on ${colors.background} is below the ${MIN_TEXT_CONTRAST}:1 contrast people need to read it`,
    })
  }
})
export type CustomColors = z.infer<typeof CustomColors>

export const SocialLink = strictObject({
  platform: z.string().min(1, 'Must not be empty').max(40, 'Must be at most 40 characters'),
  url: httpUrl(),
})
export type SocialLink = z.infer<typeof SocialLink>

export const CtaButton = strictObject({
  label: z.string().min(1, 'Must not be empty').max(40, 'Must be at most 40 characters'),
  url: z
    .string()
    .max(2048, 'Must be at most 2048 characters')
    .refine(isCtaUrl, 'Must be an absolute http:// or https:// URL, or a tel:, mailto: or sms: link')
    .describe('http(s) URL, or a tel:, mailto: or sms: link'),
})
export type CtaButton = z.infer<typeof CtaButton>

const title = z.string().min(1, 'Must not be empty').max(200, 'Must be at most 200 characters')
const description = z.string().max(2000, 'Must be at most 2000 characters')

const NOT_ON_CREATE = (field: string) =>
  `Unknown field '${field}': ${field} cannot be set when creating a showcase; add them with PATCH /showcases/{id}`

export const CreateShowcase = strictObject(
  {
    qrCodeId: Uuid.describe('The code the page belongs to (one of yours)'),
    title,
    description: description.nullable().optional(),
    slug: Slug.optional().describe('Derived from the title when omitted'),
    template: Template.default('minimal'),
    customColors: CustomColors.nullable().optional(),
    customBackgroundUrl: httpUrl().nullable().optional(),
    logoUrl: httpUrl().nullable().optional(),
    showBranding: z.boolean().default(true),
  },
  { socialLinks: NOT_ON_CREATE('socialLinks'), ctaButtons: NOT_ON_CREATE('ctaButtons') },
)
export type CreateShowcase = z.infer<typeof CreateShowcase>
export type CreateShowcaseInput = z.input<typeof CreateShowcase>

export const UpdateShowcase = strictObject({
  title: title.optional(),
  description: description.nullable().optional(),
  slug: Slug.optional(),
  template: Template.optional(),
  customColors: CustomColors.nullable().optional(),
  customBackgroundUrl: httpUrl().nullable().optional(),
  logoUrl: httpUrl().nullable().optional(),
  showBranding: z.boolean().optional(),
  isActive: z.boolean().optional(),
  socialLinks: z.array(SocialLink).max(10, 'At most 10 social links').nullable().optional(),
  ctaButtons: z.array(CtaButton).max(5, 'At most 5 buttons').nullable().optional(),
})
export type UpdateShowcase = z.infer<typeof UpdateShowcase>

export const Showcase = z
  .object({
    id: z.string().uuid(),
    qrCodeId: z.string().uuid(),
    title: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    template: Template,
    customColors: z
      .object({
        primary: z.string().optional(),
        secondary: z.string().optional(),
        background: z.string().optional(),
        text: z.string().optional(),
      })
      .nullable(),
    customBackgroundUrl: z.string().nullable(),
    logoUrl: z.string().nullable(),
    socialLinks: z.array(z.object({ platform: z.string(), url: z.string() })).nullable(),
    ctaButtons: z.array(z.object({ label: z.string(), url: z.string() })).nullable(),
    showBranding: z.boolean(),
    isActive: z.boolean(),
    viewCount: z.number().int(),
    downloadCount: z.number().int(),
    createdAt: z.string().datetime(),
    url: z.string().url().describe('The public landing page'),
  })
  .describe('A landing page attached to one QR code')
export type Showcase = z.infer<typeof Showcase>

export const ListShowcasesQuery = strictObject({
  ...pageQuery(),
  qrCodeId: Uuid.optional().describe('Only showcases of this code'),
})
export type ListShowcasesQuery = z.infer<typeof ListShowcasesQuery>

export const ShowcaseList = z.object({
  data: z.array(Showcase),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
})
