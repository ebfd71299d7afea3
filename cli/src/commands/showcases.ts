import type { CreateShowcaseParams, Showcase, UpdateShowcaseParams } from '@qrctl/sdk'
import { type Command, InvalidArgumentError, Option } from 'commander'
import { TEMPLATES } from '../choices.js'
import { codeRef, resolveCodeId } from '../code-ref.js'
import { usageError } from '../errors.js'
import { withExamples } from '../help.js'
import { addPageOptions, type PageFlags, uuid } from '../options.js'
import { type Column, printList, printRecord, shortTime } from '../output.js'
import { confirm } from '../prompt.js'
import type { Session } from '../session.js'

const COLUMNS: Column<Showcase>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'TITLE', value: (s) => s.title, shrink: true },
  { header: 'SLUG', value: (s) => s.slug },
  { header: 'TEMPLATE', value: (s) => s.template },
  { header: 'ACTIVE', value: (s) => String(s.isActive), display: (s) => (s.isActive ? 'yes' : 'no') },
  { header: 'VIEWS', value: (s) => String(s.viewCount) },
  { header: 'DOWNLOADS', value: (s) => String(s.downloadCount), dropOrder: 1 },
  { header: 'URL', value: (s) => s.url, shrink: true },
  { header: 'QR CODE', value: (s) => s.qrCodeId, dropOrder: 3 },
  { header: 'CREATED', value: (s) => s.createdAt, display: (s) => shortTime(s.createdAt), dropOrder: 2 },
]

const FIELDS: Column<Showcase>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'Title', value: (s) => s.title, style: (text, color) => color.bold(text) },
  { header: 'URL', value: (s) => s.url, style: (text, color) => color.cyan(text) },
  { header: 'Slug', value: (s) => s.slug },
  { header: 'QR code', value: (s) => s.qrCodeId },
  { header: 'Description', value: (s) => s.description ?? '-' },
  { header: 'Template', value: (s) => s.template },
  {
    header: 'Colours',
    value: (s) =>
      s.customColors
        ? Object.entries(s.customColors)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')
        : '-',
  },
  { header: 'Logo', value: (s) => s.logoUrl ?? '-' },
  { header: 'Background', value: (s) => s.customBackgroundUrl ?? '-' },
  {
    header: 'Social links',
    value: (s) => (s.socialLinks ?? []).map((l) => `${l.platform} ${l.url}`).join('\n') || '-',
  },
  {
    header: 'Buttons',
    value: (s) => (s.ctaButtons ?? []).map((b) => `${b.label} ${b.url}`).join('\n') || '-',
  },
  { header: 'Branding', value: (s) => (s.showBranding ? 'yes' : 'no') },
  { header: 'Active', value: (s) => (s.isActive ? 'yes' : 'no') },
  { header: 'Views', value: (s) => String(s.viewCount) },
  { header: 'Downloads', value: (s) => String(s.downloadCount) },
  { header: 'Created', value: (s) => s.createdAt },
]

interface PageSettingFlags {
  title?: string
  description?: string
  slug?: string
  template?: (typeof TEMPLATES)[number]
  logoUrl?: string
  backgroundUrl?: string
  branding?: boolean
  primaryColor?: string
  secondaryColor?: string
  backgroundColor?: string
  textColor?: string
}

/** `label=url` (or `platform=url`) pairs of the repeatable --social and --cta flags. */
function pair(what: string) {
  return (value: string, previous: { name: string; url: string }[] = []) => {
    const at = value.indexOf('=')
    if (at <= 0) throw new InvalidArgumentError(`Expected ${what}=URL.`)
    return [...previous, { name: value.slice(0, at), url: value.slice(at + 1) }]
  }
}

/** The flags of `showcase create` and `update` by the API field they set, for error messages. */
const SHOWCASE_FLAGS = {
  qrCodeId: '--code',
  title: '--title',
  description: '--description',
  slug: '--slug',
  template: '--template',
  logoUrl: '--logo-url',
  customBackgroundUrl: '--background-url',
  'customColors.primary': '--primary-color',
  'customColors.secondary': '--secondary-color',
  'customColors.background': '--background-color',
  'customColors.text': '--text-color',
  showBranding: '--branding',
  socialLinks: '--social',
  ctaButtons: '--cta',
  isActive: '--active/--inactive',
}

/** `--social` and `--cta`, on create and update. */
function addLinkOptions(command: Command): Command {
  return command
    .option(
      '--social <platform=url>',
      'a social link (repeat for more, up to 10; replaces the list)',
      pair('platform'),
    )
    .option(
      '--cta <label=url>',
      'a call-to-action button, http(s), tel:, mailto: or sms: (repeat for more, up to 5; replaces the list)',
      pair('label'),
    )
}

interface LinkFlags {
  social?: { name: string; url: string }[]
  cta?: { name: string; url: string }[]
}

function linksFrom(flags: LinkFlags) {
  return {
    ...(flags.social ? { socialLinks: flags.social.map((l) => ({ platform: l.name, url: l.url })) } : {}),
    ...(flags.cta ? { ctaButtons: flags.cta.map((b) => ({ label: b.name, url: b.url })) } : {}),
  }
}

function addPageSettingOptions(command: Command): Command {
  return command
    .option('--description <text>', 'text under the title, up to 2000 characters')
    .option('--slug <slug>', 'the page address /s/SLUG: 3–64 of a-z, 0-9 and -')
    .addOption(new Option('--template <name>', 'page design').choices(TEMPLATES))
    .option('--logo-url <url>', 'logo image (http/https)')
    .option('--background-url <url>', 'background image (http/https)')
    .option('--primary-color <color>', 'buttons and accents, #RGB or #RRGGBB')
    .option('--secondary-color <color>', 'secondary accent colour')
    .option('--background-color <color>', 'page background colour')
    .option('--text-color <color>', 'text colour (needs 4.5:1 contrast with the background)')
    .option('--branding', 'show "Made with qrctl"')
    .option('--no-branding', 'hide "Made with qrctl"')
}

function colorsFrom(flags: PageSettingFlags) {
  const colors = {
    ...(flags.primaryColor ? { primary: flags.primaryColor } : {}),
    ...(flags.secondaryColor ? { secondary: flags.secondaryColor } : {}),
    ...(flags.backgroundColor ? { background: flags.backgroundColor } : {}),
    ...(flags.textColor ? { text: flags.textColor } : {}),
  }
  return Object.keys(colors).length > 0 ? colors : undefined
}

function pageSettings(flags: PageSettingFlags) {
  return {
    ...(flags.title === undefined ? {} : { title: flags.title }),
    ...(flags.description === undefined ? {} : { description: flags.description }),
    ...(flags.slug === undefined ? {} : { slug: flags.slug }),
    ...(flags.template === undefined ? {} : { template: flags.template }),
    ...(flags.logoUrl === undefined ? {} : { logoUrl: flags.logoUrl }),
    ...(flags.backgroundUrl === undefined ? {} : { customBackgroundUrl: flags.backgroundUrl }),
    ...(flags.branding === undefined ? {} : { showBranding: flags.branding }),
  }
}

function show(session: Session, showcase: Showcase): void {
  printRecord(session.ui, session, showcase, FIELDS, COLUMNS)
}

function registerList(showcases: Command, session: Session): void {
  const command = showcases
    .command('list')
    .alias('ls')
    .description('List showcases, newest first')
    .option('--code <id>', 'only the showcases of this QR code (id or short code)', codeRef())
  addPageOptions(command, 'showcases')
  withExamples(command, ['qrctl showcase list', 'qrctl showcase list --code 6f1c… --json'])
  command.action(async (flags: PageFlags & { code?: string }) => {
    const rows = await session.call(async (client) => {
      const filter = flags.code ? { qrCodeId: await resolveCodeId(client, flags.code) } : {}
      if (!flags.all)
        return (
          await client.showcases.list({
            ...filter,
            ...(flags.limit === undefined ? {} : { limit: flags.limit }),
            ...(flags.offset === undefined ? {} : { offset: flags.offset }),
          })
        ).data
      const all: Showcase[] = []
      for await (const showcase of client.showcases.listAll({ ...filter, limit: flags.limit ?? 100 }))
        all.push(showcase)
      return all
    }, 'Fetching showcases…')
    printList(session.ui, session, rows, COLUMNS)
    if (rows.length === 0 && session.ui.stderrIsTty && !session.json)
      session.ui.info('No showcases found. Create one with `qrctl showcase create --code ID --title TITLE`.')
  })
}

function registerCreate(showcases: Command, session: Session): void {
  const command = showcases
    .command('create')
    .description('Create a landing page for one of your QR codes')
    .requiredOption('--code <id>', 'the QR code the page belongs to (id or short code)', codeRef())
    .requiredOption('--title <title>', 'page title, 1–200 characters')
  addLinkOptions(addPageSettingOptions(command))
  withExamples(command, [
    'qrctl showcase create --code 6f1c… --title "Spring menu" --template modern',
    'qrctl showcase create --code 6f1c… --title Menu --slug menu --primary-color "#c0392b" --no-branding',
    'qrctl showcase create --code 6f1c… --title Cafe --social instagram=https://instagram.com/cafe --cta "Call=tel:+4930123456"',
  ])
  command.action(async (flags: PageSettingFlags & LinkFlags & { code: string; title: string }) => {
    session.flagNames = SHOWCASE_FLAGS
    const colors = colorsFrom(flags)
    const links = linksFrom(flags)
    const showcase = await session.call(async (client) => {
      const params: CreateShowcaseParams = {
        ...pageSettings(flags),
        qrCodeId: await resolveCodeId(client, flags.code),
        title: flags.title,
        ...(colors ? { customColors: colors } : {}),
      }
      // The API's create takes no links (spec); they follow in one PATCH.
      const created = await client.showcases.create(params)
      return Object.keys(links).length > 0 ? client.showcases.update(created.id, links) : created
    }, 'Creating…')
    show(session, showcase)
    if (session.ui.stderrIsTty && !session.json) session.ui.success(`Created showcase ${showcase.url}`)
  })
}

function registerGet(showcases: Command, session: Session): void {
  const command = showcases
    .command('get')
    .alias('view')
    .description('Show one showcase')
    .argument('<id>', 'the showcase id', uuid('showcase'))
  withExamples(command, ['qrctl showcase get 9d2a…', 'qrctl showcase get 9d2a… --json | jq -r .url'])
  command.action(async (id: string) => {
    show(session, await session.call((client) => client.showcases.get(id)))
  })
}

interface UpdateFlags extends PageSettingFlags, LinkFlags {
  active?: boolean
  inactive?: boolean
}

function registerUpdate(showcases: Command, session: Session): void {
  const command = showcases
    .command('update')
    .alias('edit')
    .description('Change a showcase')
    .argument('<id>', 'the showcase id', uuid('showcase'))
    .option('--title <title>', 'new title')
  addLinkOptions(addPageSettingOptions(command))
    .option('--active', 'publish the page again')
    .option('--inactive', 'take the page offline')
  withExamples(command, [
    'qrctl showcase update 9d2a… --title "Summer menu" --template bold',
    'qrctl showcase update 9d2a… --social instagram=https://instagram.com/cafe --cta "Order=https://example.com/order"',
    'qrctl showcase update 9d2a… --inactive',
  ])
  command.action(async (id: string, flags: UpdateFlags) => {
    session.flagNames = SHOWCASE_FLAGS
    if (flags.active && flags.inactive) throw usageError('Pass --active or --inactive, not both')
    const params: UpdateShowcaseParams = {
      ...pageSettings(flags),
      ...(flags.active ? { isActive: true } : {}),
      ...(flags.inactive ? { isActive: false } : {}),
      ...linksFrom(flags),
    }
    const colors = colorsFrom(flags)
    const showcase = await session.call(async (client) => {
      // PATCH replaces customColors as a whole: merge the new colours into the current ones.
      if (colors) params.customColors = { ...(await client.showcases.get(id)).customColors, ...colors }
      if (Object.keys(params).length === 0)
        throw usageError('Nothing to update', 'See qrctl showcase update --help.')
      return client.showcases.update(id, params)
    }, 'Updating…')
    show(session, showcase)
    if (session.ui.stderrIsTty && !session.json) session.ui.success(`Updated showcase ${showcase.id}`)
  })
}

function registerDelete(showcases: Command, session: Session): void {
  const command = showcases
    .command('delete')
    .alias('rm')
    .description('Delete a showcase; its page answers 404 from then on')
    .argument('<id>', 'the showcase id', uuid('showcase'))
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
  withExamples(command, ['qrctl showcase delete 9d2a…', 'qrctl showcase delete 9d2a… --yes'])
  command.action(async (id: string, flags: { yes?: boolean }) => {
    await confirm(session.ui, `Delete showcase ${id}? Its page stops working.`, flags)
    const result = await session.call((client) => client.showcases.delete(id), 'Deleting…')
    if (session.json) session.ui.print(JSON.stringify(result, null, 2))
    session.ui.success(`Deleted showcase ${id}`)
  })
}

export function registerShowcaseCommands(program: Command, session: Session): void {
  const showcases = program
    .command('showcase')
    .alias('showcases')
    .description('Manage showcases: public landing pages for your QR codes')
  withExamples(showcases, ['qrctl showcase create --code 6f1c… --title "Spring menu"', 'qrctl showcase list'])
  registerList(showcases, session)
  registerCreate(showcases, session)
  registerGet(showcases, session)
  registerUpdate(showcases, session)
  registerDelete(showcases, session)
}
