import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import type { CreateQrCodeParams, QrCode, UpdateQrCodeParams } from '@qrctl/sdk'
import { type Command, Option } from 'commander'
import {
  CONTENT_TYPES,
  type ContentTypeChoice,
  QR_TYPES,
  type QrTypeChoice,
  SORTS,
  type SortChoice,
} from '../choices.js'
import { codeRef, resolveCodeId } from '../code-ref.js'
import {
  addDesignOptions,
  combineStyle,
  DESIGN_FLAG_NAMES,
  type DesignFlags,
  designFromFlags,
  logoContentType,
} from '../design-options.js'
import { CliError, usageError } from '../errors.js'
import { withExamples } from '../help.js'
import {
  addPageOptions,
  addStyleOptions,
  type PageFlags,
  type StyleFlags,
  styleFromFlags,
} from '../options.js'
import { printList, printRecord } from '../output.js'
import { confirm, valueOrStdin } from '../prompt.js'
import {
  addRedirectOptions,
  REDIRECT_FLAG_NAMES,
  type RedirectFlags,
  redirectParams,
} from '../redirect-options.js'
import type { Session } from '../session.js'
import { registerAnalyticsCommand } from './analytics.js'
import {
  DELETED_QR_CODE_COLUMNS,
  DELETED_QR_CODE_TABLE,
  QR_CODE_COLUMNS,
  QR_CODE_FIELDS,
  QR_CODE_TABLE,
} from './qr-code-views.js'

interface CreateFlags extends StyleFlags, RedirectFlags, DesignFlags {
  name: string
  contentType: ContentTypeChoice
  content: string
  type?: QrTypeChoice
  targetUrl?: string
  externalId?: string
}

interface UpdateFlags extends StyleFlags, RedirectFlags, DesignFlags {
  name?: string
  content?: string
  targetUrl?: string
  /** `--external-id ID`, or `--no-external-id` (false) to clear it. */
  externalId?: string | false
  active?: boolean
  inactive?: boolean
}

/** The flags of `create` and `update` by the API field they set, for error messages. */
const CODE_FLAGS = {
  name: '--name',
  contentType: '--content-type',
  content: '--content',
  type: '--type',
  targetUrl: '--target-url',
  externalId: '--external-id',
  style: '--fg/--bg/--ec/--margin',
  'style.foregroundColor': '--fg',
  'style.backgroundColor': '--bg',
  'style.errorCorrectionLevel': '--ec',
  'style.margin': '--margin',
  ...REDIRECT_FLAG_NAMES,
  ...DESIGN_FLAG_NAMES,
}

/** `--logo FILE` uploaded as an asset of the account; its id goes into `style.logo`. */
async function uploadLogo(session: Session, file: string): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw new CliError(`--logo: cannot read ${file}: ${(error as Error).message}`)
  }
  const params = { name: basename(file), contentType: logoContentType(file), data: bytes.toString('base64') }
  const asset = await session.call((client) => client.assets.create(params), 'Uploading the logo…')
  return asset.id
}

/** Every style flag of create and update, `--logo FILE` uploaded first. */
async function styleOf(session: Session, flags: StyleFlags & DesignFlags) {
  const logoId = flags.logo ? await uploadLogo(session, flags.logo) : undefined
  return combineStyle(styleFromFlags(flags), designFromFlags(flags, logoId))
}

function showCode(session: Session, code: QrCode): void {
  printRecord(session.ui, session, code, QR_CODE_FIELDS, QR_CODE_COLUMNS)
}

function registerCreate(program: Command, session: Session): void {
  const command = program
    .command('create')
    .description('Create a QR code')
    .requiredOption('-n, --name <name>', 'your label for the code, 1–200 characters')
    .addOption(
      new Option('-t, --content-type <type>', 'what the content is').choices(CONTENT_TYPES).default('url'),
    )
    .requiredOption('-c, --content <content>', 'the content, valid for its type ("-" reads stdin)')
    .addOption(
      new Option('--type <type>', 'static encodes the content; dynamic routes through a short link').choices(
        QR_TYPES,
      ),
    )
    .option('--target-url <url>', 'redirect destination of a dynamic code (default: the content, for urls)')
    .option('--external-id <id>', 'your own key for the code, unique among your codes (1–255 characters)')
  addStyleOptions(command)
  addRedirectOptions(command, false)
  addDesignOptions(command, { canUpload: true })
  withExamples(command, [
    'qrctl create --name Menu --content https://example.com/menu --type dynamic',
    'qrctl create --name Menu --content https://example.com/menu --module-shape dot --finder-shape rounded --logo logo.png --frame-text "Scan for the menu"',
    'qrctl create --name Wifi -t wifi --content "WIFI:T:WPA;S:Cafe;P:espresso42;;" --ec H',
    'qrctl create --name Card -t vcard --content - < card.vcf',
    'qrctl create --name Promo --content https://example.com --fg "#1A1A2E" --margin 2 --json',
    'qrctl create --name App --content https://example.com/app --rule "os=ios -> https://apps.apple.com/app/id1" --rule "os=android -> https://play.google.com/store/apps/details?id=x"',
    'qrctl create --name Giveaway --content https://example.com/win --max-scans 500 --after-limit-url https://example.com/all-gone',
  ])
  command.action(async (flags: CreateFlags) => {
    session.flagNames = CODE_FLAGS
    const style = (await styleOf(session, flags)) as CreateQrCodeParams['style']
    const redirect = await redirectParams(session, flags)
    // Only dynamic codes redirect: a redirect flag without --type means a dynamic code.
    const type = flags.type ?? (Object.keys(redirect).length > 0 ? 'dynamic' : undefined)
    const params: CreateQrCodeParams = {
      name: flags.name,
      contentType: flags.contentType,
      content: await valueOrStdin(session.ui, flags.content),
      ...(type ? { type } : {}),
      ...(flags.targetUrl ? { targetUrl: flags.targetUrl } : {}),
      ...(flags.externalId === undefined ? {} : { externalId: flags.externalId }),
      ...(style ? { style } : {}),
      ...redirect,
    }
    const code = await session.call((client) => client.qrCodes.create(params), 'Creating…')
    showCode(session, code)
    if (session.ui.stderrIsTty && !session.json) session.ui.success(`Created ${code.type} code ${code.id}`)
  })
}

interface ListFlags extends PageFlags {
  type?: QrTypeChoice
  deleted?: boolean
  externalId?: string
  tag?: string[]
  search?: string
  sort?: SortChoice
  active?: boolean
  inactive?: boolean
  ids?: boolean
}

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** The API filters of `qrctl list`'s flags. */
function listFilter(flags: ListFlags) {
  if (flags.active && flags.inactive) throw usageError('Pass --active or --inactive, not both')
  return {
    ...(flags.type ? { type: flags.type } : {}),
    ...(flags.deleted ? { deleted: true } : {}),
    ...(flags.externalId === undefined ? {} : { externalId: flags.externalId }),
    ...(flags.tag ? { tag: flags.tag } : {}),
    ...(flags.search === undefined ? {} : { search: flags.search }),
    ...(flags.sort ? { sort: flags.sort } : {}),
    ...(flags.active ? { isActive: true } : {}),
    ...(flags.inactive ? { isActive: false } : {}),
  }
}

/** One id per line on stdout, nothing else: the input of `qrctl bulk … -`. */
function printIds(session: Session, codes: readonly QrCode[]): void {
  if (codes.length > 0) session.ui.print(codes.map((code) => code.id).join('\n'))
}

function registerList(program: Command, session: Session): void {
  const command = program
    .command('list')
    .alias('ls')
    .description('List QR codes, newest first')
    .addOption(new Option('--type <type>', 'only codes of this type').choices(QR_TYPES))
    .option('--deleted', 'deleted codes that can still be restored, newest deletion first')
    .option('--external-id <id>', 'only the code with this externalId')
    .option('--tag <tag>', 'only codes with this tag (repeat it: codes with every one)', collect)
    .option(
      '--search <text>',
      'only codes whose name, content, target, short code or externalId contain this text',
    )
    .addOption(
      new Option('--sort <order>', 'order; a leading - means descending (default -createdAt)').choices(SORTS),
    )
    .option('--active', 'only active codes')
    .option('--inactive', 'only paused codes')
    .option('--ids', 'print only the ids, one per line, of every page unless --limit or --offset is given')
  withExamples(command, [
    'qrctl list',
    'qrctl list --type dynamic --limit 10',
    'qrctl list --tag spring --tag menu --search "table 4" --sort=-totalScans',
    'qrctl list --tag spring --ids | qrctl bulk deactivate -',
    'qrctl list --all --json | jq -r ".[].shortUrl"',
    'qrctl list --all | cut -f1,2   # id and name, tab-separated when piped',
    'qrctl list --deleted           # restorable for 30 days: qrctl restore ID',
  ])
  addPageOptions(command, 'codes')
  command.action(async (flags: ListFlags) => {
    const { ui } = session
    const filter = listFilter(flags)
    // Ids are for piping into `qrctl bulk` / `qrctl tag`: all of them, unless a page was asked for.
    const ids = flags.ids && flags.limit === undefined && flags.offset === undefined
    const [columns, table] = flags.deleted
      ? [DELETED_QR_CODE_COLUMNS, DELETED_QR_CODE_TABLE]
      : [QR_CODE_COLUMNS, QR_CODE_TABLE]
    if (flags.all || ids) {
      const codes = await session.call(async (client) => {
        const all: QrCode[] = []
        for await (const code of client.qrCodes.listAll({ ...filter, limit: flags.limit ?? 100 })) {
          all.push(code)
          if (ui.stdoutIsTty) ui.setSpinnerText(`Fetched ${all.length} codes…`)
        }
        return all
      }, 'Fetching codes…')
      if (flags.ids) return printIds(session, codes)
      printList(ui, session, codes, columns, table)
      if (codes.length === 0 && ui.stderrIsTty && !session.json) ui.info('No QR codes found.')
      return
    }
    const page = await session.call(
      (client) =>
        client.qrCodes.list({
          ...filter,
          ...(flags.limit === undefined ? {} : { limit: flags.limit }),
          ...(flags.offset === undefined ? {} : { offset: flags.offset }),
        }),
      'Fetching codes…',
    )
    if (flags.ids) return printIds(session, page.data)
    printList(ui, session, page.data, columns, table)
    if (!ui.stderrIsTty || session.json) return
    if (page.data.length === 0) {
      const none = flags.deleted
        ? 'No deleted codes to restore.'
        : 'No QR codes yet. Create one with `qrctl create`.'
      ui.info(page.total === 0 ? none : 'No codes on this page.')
      return
    }
    const end = page.offset + page.data.length
    if (end < page.total || page.offset > 0)
      ui.info(
        ui.err.dim(
          `Showing ${page.offset + 1}–${end} of ${page.total}.${end < page.total ? ` Next: --offset ${end}, or --all.` : ''}`,
        ),
      )
  })
}

function registerGet(program: Command, session: Session): void {
  const command = program
    .command('get')
    .alias('view')
    .description('Show one QR code')
    .argument('<id>', 'the code id, or a dynamic code’s short code', codeRef())
  withExamples(command, ['qrctl get 6f1c…', 'qrctl get 6f1c… --json | jq .shortUrl'])
  command.action(async (ref: string) => {
    showCode(
      session,
      await session.call(async (client) => client.qrCodes.get(await resolveCodeId(client, ref))),
    )
  })
}

/** PATCH replaces `style` as a whole, so new style flags are merged into the code's current style. */
async function updateParams(session: Session, id: string, flags: UpdateFlags): Promise<UpdateQrCodeParams> {
  if (flags.active && flags.inactive) throw usageError('Pass --active or --inactive, not both')
  const params: UpdateQrCodeParams = {
    ...(flags.name === undefined ? {} : { name: flags.name }),
    ...(flags.content === undefined ? {} : { content: await valueOrStdin(session.ui, flags.content) }),
    ...(flags.targetUrl === undefined ? {} : { targetUrl: flags.targetUrl }),
    ...(flags.externalId === undefined
      ? {}
      : { externalId: flags.externalId === false ? null : flags.externalId }),
    ...(flags.active ? { isActive: true } : {}),
    ...(flags.inactive ? { isActive: false } : {}),
    ...(await redirectParams(session, flags, () => session.call((client) => client.qrCodes.get(id)))),
  }
  const style = await styleOf(session, flags)
  if (style) {
    const current = await session.call((client) => client.qrCodes.get(id))
    params.style = { ...current.style, ...style } as UpdateQrCodeParams['style']
  }
  if (Object.keys(params).length === 0)
    throw usageError(
      'Nothing to update',
      'Pass at least one of --name, --content, --target-url, --external-id, --active, --inactive, --fg, --bg, --ec, --margin, or a redirect flag (--rule, --max-scans, --password …).',
    )
  return params
}

function registerUpdate(program: Command, session: Session): void {
  const command = program
    .command('update')
    .alias('edit')
    .description('Change a QR code (its type and content type never change)')
    .argument('<id>', 'the code id, or a dynamic code’s short code', codeRef())
    .option('-n, --name <name>', 'new name')
    .option('-c, --content <content>', 'new content ("-" reads stdin); a static code’s image changes with it')
    .option('--target-url <url>', 'new redirect destination (dynamic codes only), effective at once')
    .option('--external-id <id>', 'set your own key for the code')
    .option('--no-external-id', 'clear it')
    .option('--active', 'resume a paused dynamic code')
    .option('--inactive', 'pause a dynamic code: its short link answers 410')
  addStyleOptions(command)
  addRedirectOptions(command, true)
  addDesignOptions(command, { canUpload: true })
  withExamples(command, [
    'qrctl update 6f1c… --target-url https://example.com/summer',
    'qrctl update 6f1c… --style brand.json',
    'qrctl update 6f1c… --inactive',
    'qrctl update 6f1c… --fg "#003366" --ec Q',
    'qrctl update 6f1c… --expires-at 2026-12-31T23:59:59+01:00 --expired-url https://example.com/over',
    'qrctl update 6f1c… --no-max-scans --no-password',
  ])
  command.action(async (ref: string, flags: UpdateFlags) => {
    session.flagNames = CODE_FLAGS
    const id = await session.call((client) => resolveCodeId(client, ref))
    const params = await updateParams(session, id, flags)
    const code = await session.call((client) => client.qrCodes.update(id, params), 'Updating…')
    showCode(session, code)
    if (session.ui.stderrIsTty && !session.json) session.ui.success(`Updated ${code.id}`)
  })
}

function registerDelete(program: Command, session: Session): void {
  const command = program
    .command('delete')
    .alias('rm')
    .description('Delete a QR code (restorable for 30 days)')
    .argument('<id>', 'the code id, or a dynamic code’s short code', codeRef())
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
  withExamples(command, ['qrctl delete 6f1c…', 'qrctl delete 6f1c… --yes'])
  command.action(async (ref: string, flags: { yes?: boolean }) => {
    const { ui } = session
    const id = await session.call((client) => resolveCodeId(client, ref))
    if (!flags.yes && ui.stdinIsTty) {
      const code = await session.call((client) => client.qrCodes.get(id))
      await confirm(ui, `Delete QR code '${code.name}' (${code.id})?`, flags)
    } else {
      await confirm(ui, `Delete QR code ${id}?`, flags)
    }
    const result = await session.call((client) => client.qrCodes.delete(id), 'Deleting…')
    if (session.json) ui.print(JSON.stringify(result, null, 2))
    ui.success(`Deleted ${id}. Restore it within 30 days with: qrctl restore ${id}`)
  })
}

function registerRestore(program: Command, session: Session): void {
  const command = program
    .command('restore')
    .description('Bring back a QR code deleted in the last 30 days')
    .argument('<id>', 'the code id, or a dynamic code’s short code', codeRef())
  withExamples(command, ['qrctl restore 6f1c…'])
  command.action(async (ref: string) => {
    const code = await session.call(
      async (client) => client.qrCodes.restore(await resolveCodeId(client, ref, { deleted: true })),
      'Restoring…',
    )
    showCode(session, code)
    if (session.ui.stderrIsTty && !session.json) session.ui.success(`Restored ${code.id}`)
  })
}

/** The main noun's verbs sit at the top level (STYLE: `qrctl create`, `qrctl list` …). */
export function registerQrCodeCommands(program: Command, session: Session): void {
  registerCreate(program, session)
  registerList(program, session)
  registerGet(program, session)
  registerUpdate(program, session)
  registerDelete(program, session)
  registerRestore(program, session)
  registerAnalyticsCommand(program, session)
}
