import { WEBHOOK_EVENT_TYPES } from '@qrctl/contract'
import type { Webhook, WebhookDelivery, WebhookWithSecret } from '@qrctl/sdk'
import { type Command, InvalidArgumentError } from 'commander'
import { withExamples } from '../help.js'
import { integer, uuid } from '../options.js'
import { type Column, printList, printRecord, shortTime } from '../output.js'
import { confirm } from '../prompt.js'
import type { Session } from '../session.js'

type EventChoice = Webhook['events'][number]

const COLUMNS: Column<Webhook>[] = [
  { header: 'ID', value: (w) => w.id },
  { header: 'URL', value: (w) => w.url, shrink: true },
  { header: 'EVENTS', value: (w) => w.events.join(','), shrink: true },
  {
    header: 'CODES',
    value: (w) => (w.qrCodeIds ? w.qrCodeIds.join(',') : ''),
    display: (w) => (w.qrCodeIds ? String(w.qrCodeIds.length) : 'all'),
  },
  {
    header: 'STATUS',
    value: (w) => (w.isActive ? 'active' : `disabled${w.disabledReason ? ` (${w.disabledReason})` : ''}`),
    style: (text, color, w) => (w.isActive ? color.green(text) : color.yellow(text)),
  },
  { header: 'CREATED', value: (w) => w.createdAt, display: (w) => shortTime(w.createdAt), dropOrder: 2 },
]

const FIELDS: Column<Webhook>[] = [
  ...COLUMNS.slice(0, 2),
  { header: 'DESCRIPTION', value: (w) => w.description ?? '', display: (w) => w.description ?? '-' },
  ...COLUMNS.slice(2),
]

const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  { header: 'ID', value: (d) => d.id },
  { header: 'TYPE', value: (d) => d.type },
  {
    header: 'STATUS',
    value: (d) => d.status,
    style: (text, color, d) =>
      d.status === 'succeeded'
        ? color.green(text)
        : d.status === 'failed'
          ? color.red(text)
          : color.yellow(text),
  },
  { header: 'ATTEMPTS', value: (d) => String(d.attempts) },
  {
    header: 'HTTP',
    value: (d) => (d.responseStatus === null ? '' : String(d.responseStatus)),
    display: (d) => (d.responseStatus === null ? '-' : String(d.responseStatus)),
  },
  {
    header: 'LAST ATTEMPT',
    value: (d) => d.lastAttemptAt ?? '',
    display: (d) => shortTime(d.lastAttemptAt) || '-',
  },
  {
    header: 'NEXT',
    value: (d) => d.nextAttemptAt ?? '',
    display: (d) => shortTime(d.nextAttemptAt) || '-',
    dropOrder: 2,
  },
  { header: 'EVENT', value: (d) => d.eventId, dropOrder: 1 },
]

const EVENT_NAMES: readonly string[] = ['*', ...WEBHOOK_EVENT_TYPES]

/** `--events scan.created,qr_code.updated` or `*`: checked here, so a typo is a usage error. */
function eventList(value: string): EventChoice[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  const unknown = events.find((e) => !EVENT_NAMES.includes(e))
  if (unknown)
    throw new InvalidArgumentError(`Unknown event '${unknown}'. Events: ${EVENT_NAMES.join(', ')}.`)
  if (events.length === 0) throw new InvalidArgumentError('Name at least one event, or *.')
  return events as EventChoice[]
}

/** `--codes id,id`: the codes whose events the webhook gets. */
function codeList(value: string): string[] {
  const check = uuid('QR code')
  return value.split(',').map((id) => check(id))
}

/** The secret is data: alone on stdout (or inside the JSON); the reminder goes to stderr. */
function printSecret(session: Session, secret: string, json: unknown, what: string): void {
  if (session.json) session.ui.print(JSON.stringify(json, null, 2))
  else session.ui.print(secret)
  session.ui.success(`${what} Store the secret now: it is not shown again.`)
}

function registerList(webhooks: Command, session: Session): void {
  const command = webhooks.command('list').alias('ls').description('List webhooks, newest first')
  withExamples(command, ['qrctl webhooks list', 'qrctl webhooks list --json'])
  command.action(async () => {
    const rows = await session.call(async (client) => {
      const all: Webhook[] = []
      for await (const w of client.webhooks.listAll()) all.push(w)
      return all
    }, 'Fetching webhooks…')
    printList(session.ui, session, rows, COLUMNS)
  })
}

function registerCreate(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('create')
    .description('Create a webhook; its signing secret is printed once, to stdout')
    .requiredOption('-u, --url <url>', 'where events are POSTed (a public http or https URL)')
    .option('-e, --events <list>', 'comma-separated event types, or * for all', eventList, [
      '*',
    ] as EventChoice[])
    .option('--codes <ids>', 'only events of these QR codes (comma-separated ids)', codeList)
    .option('-d, --description <text>', 'what the webhook is for')
  withExamples(command, [
    'qrctl webhooks create --url https://crm.example.com/qrctl --events scan.created',
    'qrctl webhooks create --url https://hooks.example.com/q --events "*" > webhook-secret.txt',
  ])
  command.action(
    async (flags: { url: string; events: EventChoice[]; codes?: string[]; description?: string }) => {
      const hook: WebhookWithSecret = await session.call(
        (client) =>
          client.webhooks.create({
            url: flags.url,
            events: flags.events,
            ...(flags.codes ? { qrCodeIds: flags.codes } : {}),
            ...(flags.description ? { description: flags.description } : {}),
          }),
        'Creating webhook…',
      )
      printSecret(session, hook.secret, hook, `Created webhook ${hook.id} for ${hook.events.join(', ')}.`)
    },
  )
}

function registerGet(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('get')
    .description('Show one webhook')
    .argument('<id>', 'the webhook id (see qrctl webhooks list)', uuid('webhook'))
  command.action(async (id: string) => {
    const hook = await session.call((client) => client.webhooks.get(id), 'Fetching webhook…')
    printRecord(session.ui, session, hook, FIELDS, COLUMNS)
  })
}

function registerUpdate(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('update')
    .description('Change a webhook; --enable turns a disabled one on again (missed events are not replayed)')
    .argument('<id>', 'the webhook id', uuid('webhook'))
    .option('-u, --url <url>', 'a new destination')
    .option('-e, --events <list>', 'comma-separated event types, or *', eventList)
    .option('--codes <ids>', 'only events of these QR codes (comma-separated ids)', codeList)
    .option('--all-codes', 'events of every code (clears --codes)')
    .option('-d, --description <text>', 'what the webhook is for')
    .option('--enable', 'deliver again')
    .option('--disable', 'stop delivering')
  withExamples(command, ['qrctl webhooks update 6f1c… --events "*"', 'qrctl webhooks update 6f1c… --enable'])
  command.action(
    async (
      id: string,
      flags: {
        url?: string
        events?: EventChoice[]
        codes?: string[]
        allCodes?: boolean
        description?: string
        enable?: boolean
        disable?: boolean
      },
    ) => {
      if (flags.enable && flags.disable)
        throw new InvalidArgumentError('Give --enable or --disable, not both.')
      const hook = await session.call(
        (client) =>
          client.webhooks.update(id, {
            ...(flags.url === undefined ? {} : { url: flags.url }),
            ...(flags.events === undefined ? {} : { events: flags.events }),
            ...(flags.codes === undefined ? {} : { qrCodeIds: flags.codes }),
            ...(flags.allCodes ? { qrCodeIds: null } : {}),
            ...(flags.description === undefined ? {} : { description: flags.description }),
            ...(flags.enable ? { isActive: true } : {}),
            ...(flags.disable ? { isActive: false } : {}),
          }),
        'Updating webhook…',
      )
      printRecord(session.ui, session, hook, FIELDS, COLUMNS)
    },
  )
}

function registerDelete(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('delete')
    .alias('rm')
    .description('Delete a webhook and what it has pending')
    .argument('<id>', 'the webhook id', uuid('webhook'))
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
  command.action(async (id: string, flags: { yes?: boolean }) => {
    await confirm(session.ui, `Delete webhook ${id}? Its pending deliveries are dropped.`, flags)
    const result = await session.call((client) => client.webhooks.delete(id), 'Deleting…')
    if (session.json) session.ui.print(JSON.stringify(result, null, 2))
    session.ui.success(`Deleted webhook ${id}`)
  })
}

function registerTest(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('test')
    .description('Send a webhook.test event to a webhook, whatever its filters')
    .argument('<id>', 'the webhook id', uuid('webhook'))
  withExamples(command, ['qrctl webhooks test 6f1c… && qrctl webhooks deliveries 6f1c… --limit 1'])
  command.action(async (id: string) => {
    const delivery = await session.call((client) => client.webhooks.test(id), 'Queueing a test event…')
    printList(session.ui, session, [delivery], DELIVERY_COLUMNS)
    if (session.json) return
    session.ui.success(`Queued webhook.test as delivery ${delivery.id}`)
  })
}

function registerDeliveries(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('deliveries')
    .description('The delivery log of a webhook, newest first')
    .argument('<id>', 'the webhook id', uuid('webhook'))
    .option('-L, --limit <n>', 'how many deliveries, 1–100 (default 50)', integer(1, 100))
    .option('--offset <n>', 'skip this many', integer(0, Number.MAX_SAFE_INTEGER))
  withExamples(command, [
    'qrctl webhooks deliveries 6f1c…',
    'qrctl webhooks deliveries 6f1c… --json | jq ".[0].responseBody"',
  ])
  command.action(async (id: string, flags: { limit?: number; offset?: number }) => {
    const page = await session.call(
      (client) =>
        client.webhooks.deliveries(id, {
          ...(flags.limit === undefined ? {} : { limit: flags.limit }),
          ...(flags.offset === undefined ? {} : { offset: flags.offset }),
        }),
      'Fetching deliveries…',
    )
    printList(session.ui, session, page.data, DELIVERY_COLUMNS)
  })
}

function registerRedeliver(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('redeliver')
    .description('One more attempt of a delivery, with the same webhook-id')
    .argument('<id>', 'the webhook id', uuid('webhook'))
    .argument('<deliveryId>', 'the delivery id (see qrctl webhooks deliveries)', uuid('delivery'))
  command.action(async (id: string, deliveryId: string) => {
    const delivery = await session.call((client) => client.webhooks.redeliver(id, deliveryId), 'Queueing…')
    printList(session.ui, session, [delivery], DELIVERY_COLUMNS)
    if (!session.json) session.ui.success(`Queued another attempt of delivery ${deliveryId}`)
  })
}

function registerRotate(webhooks: Command, session: Session): void {
  const command = webhooks
    .command('rotate-secret')
    .description('A new signing secret; for 24 hours deliveries carry the old signature too')
    .argument('<id>', 'the webhook id', uuid('webhook'))
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
  withExamples(command, ['qrctl webhooks rotate-secret 6f1c… --yes > new-secret.txt'])
  command.action(async (id: string, flags: { yes?: boolean }) => {
    await confirm(
      session.ui,
      `Rotate the secret of webhook ${id}? The old one verifies for 24 hours more.`,
      flags,
    )
    const rotated = await session.call((client) => client.webhooks.rotateSecret(id), 'Rotating…')
    printSecret(
      session,
      rotated.secret,
      rotated,
      `Rotated the secret of webhook ${id}; the old one verifies until 24 hours from now.`,
    )
  })
}

export function registerWebhookCommands(program: Command, session: Session): void {
  const webhooks = program
    .command('webhooks')
    .alias('webhook')
    .description('Push scans and changes to your systems (signed Standard Webhooks)')
  withExamples(webhooks, [
    'qrctl webhooks create --url https://crm.example.com/qrctl --events scan.created',
    'qrctl webhooks list',
    'qrctl webhooks deliveries 6f1c…',
  ])
  registerList(webhooks, session)
  registerCreate(webhooks, session)
  registerGet(webhooks, session)
  registerUpdate(webhooks, session)
  registerDelete(webhooks, session)
  registerTest(webhooks, session)
  registerDeliveries(webhooks, session)
  registerRedeliver(webhooks, session)
  registerRotate(webhooks, session)
}
