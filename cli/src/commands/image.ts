import { readFile, writeFile } from 'node:fs/promises'
import { extname } from 'node:path'
import { type Command, Option } from 'commander'
import { CONTENT_TYPES, type ContentTypeChoice, IMAGE_FORMATS, type ImageFormatChoice } from '../choices.js'
import { codeRef, resolveCodeId } from '../code-ref.js'
import {
  addDesignOptions,
  combineStyle,
  DESIGN_FLAG_NAMES,
  type DesignFlags,
  designFromFlags,
} from '../design-options.js'
import { CliError, usageError } from '../errors.js'
import { withExamples } from '../help.js'
import { loadContract, loadRender } from '../lazy.js'
import { addStyleOptions, integer, type StyleFlags, styleFromFlags } from '../options.js'
import { valueOrStdin } from '../prompt.js'
import type { Session } from '../session.js'
import type { Ui } from '../ui.js'

interface OutputFlags {
  format?: ImageFormatChoice
  output?: string
  size?: number
}

/** The format from --format, else from the file name's extension, else `fallback`. */
function pickFormat(
  flags: OutputFlags,
  fallback: ImageFormatChoice | undefined,
): ImageFormatChoice | undefined {
  if (flags.format) return flags.format
  if (flags.output && flags.output !== '-') {
    const ext = extname(flags.output).slice(1).toLowerCase()
    if ((IMAGE_FORMATS as readonly string[]).includes(ext)) return ext as ImageFormatChoice
    throw usageError(
      `Cannot tell the format from '${flags.output}'`,
      'Name the file .png, .svg or .pdf, or pass --format.',
    )
  }
  return fallback
}

/** PNG and PDF bytes never go to a terminal: they would garble it. */
function checkTarget(ui: Ui, target: string, format: ImageFormatChoice): void {
  if (target === '-' && format !== 'svg' && ui.stdoutIsTty)
    throw usageError(
      `Refusing to write binary ${format.toUpperCase()} data to the terminal`,
      'Use -o FILE, or redirect stdout: > code.png',
    )
}

/** Writes an image to a file, or to stdout with `-`. */
async function writeImage(
  ui: Ui,
  target: string,
  format: ImageFormatChoice,
  body: Uint8Array,
): Promise<void> {
  checkTarget(ui, target, format)
  if (target === '-') {
    ui.stdout.write(body)
    return
  }
  await writeFile(target, body)
  ui.success(`Wrote ${target} (${format.toUpperCase()}, ${body.byteLength.toLocaleString('en-US')} bytes)`)
}

function addOutputOptions(command: Command, outputHelp: string): Command {
  return command
    .option('-o, --output <file>', outputHelp)
    .addOption(
      new Option('-f, --format <format>', 'image format (default: from the file name, else png)').choices(
        IMAGE_FORMATS,
      ),
    )
    .option('-s, --size <px>', 'PNG width and height in pixels, 64–4096 (default 512)', integer(64, 4096))
}

function registerImage(program: Command, session: Session): void {
  const command = program
    .command('image')
    .description('Download the rendered image of a QR code (PNG, SVG or PDF)')
    .argument('<id>', 'the code id, or a dynamic code’s short code', codeRef())
  addOutputOptions(command, 'write to FILE; "-" writes to stdout (default when stdout is not a terminal)')
  withExamples(command, [
    'qrctl image 6f1c… -o menu.png --size 1024',
    'qrctl image 6f1c… -o menu.pdf',
    'qrctl image 6f1c… --format svg -o - > menu.svg',
  ])
  command.action(async (id: string, flags: OutputFlags) => {
    const { ui } = session
    const format = pickFormat(flags, 'png') ?? 'png'
    const target = flags.output ?? (ui.stdoutIsTty ? undefined : '-')
    if (target === undefined)
      throw usageError('Where should the image go?', 'Pass -o FILE (or -o - for stdout).')
    checkTarget(ui, target, format)
    const body = await session.call(
      async (client) =>
        client.qrCodes.image(await resolveCodeId(client, id), {
          format,
          ...(flags.size === undefined ? {} : { size: flags.size }),
        }),
      'Downloading…',
    )
    await writeImage(ui, target, format, body)
  })
}

interface RenderFlags extends StyleFlags, DesignFlags, OutputFlags {
  contentType: ContentTypeChoice
  content: string
  invert?: boolean
}

/** The flag behind each field the contract may complain about. */
const RENDER_FLAGS: Record<string, string> = {
  contentType: '--content-type',
  content: '--content',
  'style.foregroundColor': '--fg',
  'style.backgroundColor': '--bg',
  'style.errorCorrectionLevel': '--ec',
  'style.margin': '--margin',
  ...DESIGN_FLAG_NAMES,
}

/** Offline, `--logo` names the PNG to draw; the style needs an asset id, which this stands in for. */
const OFFLINE_LOGO_ID = '00000000-0000-4000-8000-000000000000'
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

async function offlineLogo(file: string | undefined): Promise<Uint8Array | undefined> {
  if (!file) return undefined
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw new CliError(`--logo: cannot read ${file}: ${(error as Error).message}`)
  }
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE))
    throw new CliError('--logo: an offline render draws PNG logos only', {
      hint: 'Convert the logo to PNG, or create the code on the server, which accepts JPEG, WebP and SVG too.',
    })
  return bytes
}

/**
 * The payload and style of a static code, checked exactly as the server checks a new code:
 * the contract's CreateQrCode schema (content rules per type, style, contrast), then the symbol
 * capacity at the chosen level.
 */
async function validateStatic(flags: RenderFlags) {
  const { CreateQrCode, encodePayload, withLogoLevel } = await loadContract()
  const { checkCapacity } = await loadRender()
  const style = combineStyle(
    styleFromFlags(flags),
    designFromFlags(flags, flags.logo ? OFFLINE_LOGO_ID : undefined),
  )
  const parsed = CreateQrCode.safeParse({
    name: 'render',
    contentType: flags.contentType,
    content: flags.content,
    type: 'static',
    ...(style ? { style } : {}),
  })
  if (!parsed.success) {
    throw new CliError('Cannot render this code', {
      lines: parsed.error.issues.map((issue) => {
        const path = issue.path.join('.')
        return `${RENDER_FLAGS[path] ?? path}: ${issue.message}`
      }),
    })
  }
  const encoded = encodePayload(parsed.data)
  if (!encoded.ok) throw new CliError(`--content: ${encoded.message}`)
  // A logo raises the level (DESIGN §13), as the server would store it.
  const level = parsed.data.style ? withLogoLevel(parsed.data.style).errorCorrectionLevel : undefined
  const fit = checkCapacity(encoded.payload, level ?? 'M')
  if (!fit.ok) throw new CliError(`--content: ${fit.message}`)
  return { payload: encoded.payload, style: parsed.data.style ?? null }
}

function registerRender(program: Command, session: Session): void {
  const command = program
    .command('render')
    .description('Render a static QR code offline (no server): to a PNG, SVG or PDF file, or to the terminal')
    .addOption(
      new Option('-t, --content-type <type>', 'what the content is').choices(CONTENT_TYPES).default('url'),
    )
    .requiredOption('-c, --content <content>', 'the content, valid for its type ("-" reads stdin)')
  addStyleOptions(command)
  addDesignOptions(command, { canUpload: false })
  addOutputOptions(command, 'write FILE.png, FILE.svg or FILE.pdf ("-" for stdout); default: the terminal')
  command.option('--invert', 'terminal output without colour: draw the light modules, for dark backgrounds')
  withExamples(command, [
    'qrctl render --content https://example.com',
    'qrctl render -t wifi --content "WIFI:T:WPA;S:Cafe;P:espresso42;;" -o wifi.png --size 1024',
    'qrctl render -t email --content hi@example.com --fg "#003366" -o mail.svg',
    'qrctl render --content https://example.com --format png -o - | lpr',
  ])
  command.action(async (flags: RenderFlags) => {
    const { ui } = session
    const content = await valueOrStdin(ui, flags.content)
    const { payload, style } = await validateStatic({ ...flags, content })
    const logo = await offlineLogo(flags.logo)
    const render = await loadRender()
    const format = pickFormat(flags, undefined)
    if (!format) {
      const text = render.renderTerminal(payload, style, { invert: flags.invert === true })
      // With colour, paint dark on light whatever the terminal's own colours are.
      const painted =
        ui.out.level > 0 && !flags.invert
          ? text
              .split('\n')
              .map((line) => (line ? ui.out.bgWhite.black(line) : line))
              .join('\n')
          : text
      ui.stdout.write(painted)
      return
    }
    const target = flags.output ?? '-'
    if (format === 'svg')
      await writeImage(
        ui,
        target,
        format,
        new TextEncoder().encode(render.renderSvg(payload, style, { logo })),
      )
    else if (format === 'pdf')
      await writeImage(ui, target, format, await render.renderPdf(payload, style, { logo }))
    else
      await writeImage(
        ui,
        target,
        format,
        render.renderPng(payload, style, { logo, ...(flags.size ? { size: flags.size } : {}) }),
      )
  })
}

export function registerImageCommands(program: Command, session: Session): void {
  registerImage(program, session)
  registerRender(program, session)
}
