/**
 * The agentic-workspace records the offline summariser reads from a span's
 * envelopes (id-bearing records, staged approvals and who answered them,
 * plans, transactions, jobs, task boards, research, search snippets, the
 * permission mode and capabilities) and the bodies of the agentic sections it
 * writes of them; with the one-line wording both use.
 *
 * @since 0.1.0
 */
import * as Envelope from "../../src/Envelope.js"
import * as Clip from "../../src/internal/reduce/Clip.js"
import * as Approvals from "../../src/internal/working-state/Approvals.js"
import * as Json from "../../src/Json.js"
import * as SummaryPrompt from "../../src/SummaryPrompt.js"
import type * as Transcript from "../../src/Transcript.js"
import * as WorkingState from "../../src/WorkingState.js"

/** A value in inline code. */
export const inline = WorkingState.inlineCode

/** Text on one line, clipped to `max` characters. */
export const oneLine = (text: string, max: number): string => Clip.label(text.replace(/\s+/g, " ").trim(), max)

/** A value that is a string, else none. */
export const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const scalar = (value: unknown): string | undefined =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : value === null
    ? "null"
    : undefined

/** An approval a span staged, and the user message that answered it, if any. */
export interface PendingApproval {
  readonly position: number
  /** The user message that accepted, rejected or denied it later in the span, if any. */
  answeredIn: string | undefined
  readonly id: string
  readonly kind: string
  readonly title: string
  readonly destructive: boolean | undefined
  readonly toolCallId: string
  readonly resumeCall: string
}

/** What a span's envelopes hold of the workspace. */
export interface AgenticRecords {
  readonly records: Map<string, Record<string, unknown>>
  readonly approvals: Array<PendingApproval>
  readonly snippets: Array<{ readonly url: string; readonly title: string }>
  permissionMode: string | undefined
  activePlan: string | undefined
  pendingPlan: string | undefined
  capabilities: Record<string, unknown> | undefined
}

/**
 * The call to re-issue once the user accepts a staged approval: the resume
 * record's tool and arguments, byte for byte; past `Envelope.resumeLimitChars`
 * characters of arguments, the recovery route that lists it.
 *
 * @since 0.1.0
 * @category agentic
 */
export const resumeCall = (resume: unknown, approvalId: string): string => {
  const tool = asString(Json.getOwn(resume, "tool"))
  const args = Json.getOwn(resume, "arguments")
  const argsText = args === undefined ? undefined : Json.stringifyOrUndefined(args)
  if (tool === undefined || argsText === undefined) {
    return `workspace_inspect {"action":"changes"} (the resume record of ${approvalId} is missing; this lists it)`
  }
  if (argsText.length > Envelope.resumeLimitChars) {
    return `workspace_inspect {"action":"changes"} (the resume arguments of ${approvalId} pass ${Envelope.resumeLimitChars} characters; this lists them)`
  }
  return `${tool} ${argsText}`
}

const recordFields: Record<string, ReadonlyArray<string>> = {
  approval_: ["kind", "status", "title", "path", "destructive"],
  plan_: ["status", "revision", "supersedes", "planPath", "path", "title"],
  tx_: ["status", "title", "files"],
  job_: ["status", "executable", "exitCode", "title", "startedAt"],
  todo_: ["title", "items", "open", "done"],
  research_: ["title", "status", "question"],
  run_: ["status", "role", "passesUsed", "passBudget"],
  source_: ["url", "title", "contentPath", "fetched", "fetchedAt"]
}

const prefixOf = (id: string): string | undefined => Envelope.idPrefixes.find((prefix) => id.startsWith(prefix))

/** Walks an envelope for id-bearing records, snippets, and the workspace's modes; bounded in depth and count. */
const collectEnvelope = (
  envelope: Envelope.Envelope,
  toolCallId: string,
  position: number,
  into: AgenticRecords
): void => {
  const data = envelope.data
  if (Approvals.stages(envelope)) {
    const approval = Json.getOwn(data, "approval")
    const id = asString(Json.getOwn(approval, "id")) ?? `(approval of call ${toolCallId})`
    const destructive = Json.getOwn(approval, "destructive")
    into.approvals.push({
      position,
      answeredIn: undefined,
      id,
      kind: asString(Json.getOwn(approval, "kind")) ?? "unknown kind",
      title: asString(Json.getOwn(approval, "title")) ?? envelope.summary ?? `${envelope.tool} ${envelope.action}`,
      destructive: typeof destructive === "boolean" ? destructive : undefined,
      toolCallId,
      resumeCall: resumeCall(Json.getOwn(approval, "resume"), id)
    })
  }
  const permissionMode = asString(Json.getOwn(data, "permissionMode"))
  if (permissionMode !== undefined) into.permissionMode = permissionMode
  const activePlan = Json.getOwn(data, "activePlan")
  if (typeof activePlan === "string" || activePlan === null) into.activePlan = activePlan ?? "none"
  const pendingPlan = Json.getOwn(data, "pendingPlan")
  if (typeof pendingPlan === "string" || pendingPlan === null) into.pendingPlan = pendingPlan ?? "none"
  const capabilities = Json.getOwn(data, "capabilities")
  if (Json.isObject(capabilities)) into.capabilities = { ...into.capabilities, ...capabilities }

  const stack: Array<{ readonly node: unknown; readonly depth: number; readonly inResume: boolean }> = [{
    node: data,
    depth: 0,
    inResume: false
  }]
  let visited = 0
  while (stack.length > 0 && visited < 20_000) {
    const { depth, inResume, node } = stack.pop()!
    visited++
    if (typeof node !== "object" || node === null || depth > 24) continue
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], depth: depth + 1, inResume })
      continue
    }
    const record = node as Record<string, unknown>
    const id = asString(Json.getOwn(record, "id"))
    const prefix = id === undefined ? undefined : prefixOf(id)
    // A resume record's arguments are a call to make, not state the workspace reports.
    if (!inResume && id !== undefined && prefix !== undefined && !id.includes(".")) {
      const kept: Record<string, unknown> = {}
      for (const field of recordFields[prefix] ?? []) {
        const value = Json.getOwn(record, field)
        if (value !== undefined) kept[field] = value
      }
      into.records.set(id, { ...into.records.get(id), ...kept })
    }
    const snippet = Json.getOwn(record, "snippet")
    const url = asString(Json.getOwn(record, "url"))
    if (!inResume && typeof snippet === "string" && url !== undefined && Json.getOwn(record, "fetched") !== true) {
      into.snippets.push({ url, title: asString(Json.getOwn(record, "title")) ?? "" })
    }
    const keys = Object.keys(record)
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!
      stack.push({ node: record[key], depth: depth + 1, inResume: inResume || key === "resume" })
    }
  }
}

/** The workspace records of a span's envelopes; none when no tool result is an envelope. */
export const collectAgentic = (span: Transcript.Transcript): AgenticRecords | undefined => {
  const records: AgenticRecords = {
    records: new Map(),
    approvals: [],
    snippets: [],
    permissionMode: undefined,
    activePlan: undefined,
    pendingPlan: undefined,
    capabilities: undefined
  }
  let any = false
  span.forEach((message, position) => {
    const answer = message._tag === "User" ? Approvals.answerIn(message.content) : undefined
    if (answer !== undefined) {
      for (const approval of records.approvals) {
        if (
          approval.answeredIn === undefined && approval.position < position && Approvals.answers(answer, approval.id)
        ) approval.answeredIn = message.id
      }
    }
    if (message._tag !== "ToolResult") return
    const envelope = WorkingState.envelopeOf(message.content)
    if (envelope === undefined) return
    any = true
    collectEnvelope(envelope, message.toolCallId, position, records)
  })
  return any ? records : undefined
}

const recordsWith = (
  agentic: AgenticRecords,
  prefix: string
): ReadonlyArray<readonly [string, Record<string, unknown>]> =>
  Array.from(agentic.records).filter(([id]) => id.startsWith(prefix))

const withFields = (fields: string): string => (fields === "" ? "" : `: ${fields}`)

const fieldList = (record: Record<string, unknown>, fields: ReadonlyArray<readonly [string, string]>): string =>
  fields
    .flatMap(([field, label]) => {
      const value = scalar(record[field])
      return value === undefined ? [] : [`${label} ${inline(oneLine(value, 200))}`]
    })
    .join(", ")

const listOf = (values: ReadonlyArray<string>, limit: number): string =>
  values.length <= limit
    ? values.map(inline).join(", ")
    : `${values.slice(0, limit).map(inline).join(", ")} and ${values.length - limit} more`

/** Who answered a staged approval, as a note to its line. */
export const answeredNote = (approval: PendingApproval): string =>
  approval.answeredIn === undefined
    ? ""
    : ` (the user answered it in ${inline(approval.answeredIn)}; check whether it was accepted)`

/** The agentic sections' bodies, by heading. */
export const agenticSectionBodies = (
  agentic: AgenticRecords
): ReadonlyArray<readonly [string, ReadonlyArray<string>]> => {
  const approvals = agentic.approvals.map((approval) =>
    `- ${inline(approval.id)} (${approval.kind}${approval.destructive === true ? ", destructive" : ""}) gates ${
      JSON.stringify(oneLine(approval.title, 200))
    }, staged by call ${inline(approval.toolCallId)}${answeredNote(approval)}. Once the user accepts, re-issue: ${
      inline(approval.resumeCall)
    }`
  )
  const plans = [
    ...(agentic.activePlan === undefined && agentic.pendingPlan === undefined
      ? []
      : [
        `- Active plan: ${inline(agentic.activePlan ?? "not reported")}; pending plan: ${
          inline(agentic.pendingPlan ?? "not reported")
        }`
      ]),
    ...recordsWith(agentic, "plan_").map(([id, record]) =>
      `- ${inline(id)}${
        withFields(
          fieldList(record, [["revision", "revision"], ["status", "status"], ["supersedes", "supersedes"], [
            "planPath",
            "plan at"
          ], ["path", "path"]])
        )
      }`
    )
  ]
  const transactions = recordsWith(agentic, "tx_").map(([id, record]) => {
    const files = Array.isArray(record["files"])
      ? record["files"].filter((file): file is string => typeof file === "string")
      : []
    const status = scalar(record["status"])
    return `- ${inline(id)}${status === undefined ? "" : `: status ${inline(status)}`}${
      files.length === 0 ? "" : `; files ${listOf(files, 20)}`
    }`
  })
  const jobs = recordsWith(agentic, "job_").map(([id, record]) =>
    `- ${inline(id)}${
      withFields(
        fieldList(record, [["executable", "executable"], ["exitCode", "exit code"], ["status", "status"], [
          "title",
          "title"
        ]])
      )
    }`
  )
  const boards = recordsWith(agentic, "todo_").map(([id, record]) => {
    const items = Array.isArray(record["items"]) ? record["items"] : []
    const open = items.filter((item) => {
      const status = asString(Json.getOwn(item, "status"))
      return status === undefined || !/^(?:done|completed|closed|cancelled|canceled)$/i.test(status)
    })
    const openText = open.slice(0, 12).map((item) => {
      const itemId = asString(Json.getOwn(item, "id"))
      const text = asString(Json.getOwn(item, "text")) ?? asString(Json.getOwn(item, "title")) ?? ""
      const status = asString(Json.getOwn(item, "status"))
      return `${itemId === undefined ? "" : `${inline(itemId)} `}${oneLine(text, 160)}${
        status === undefined ? "" : ` (${status})`
      }`
    })
    const counts = fieldList(record, [["open", "open"], ["done", "done"]])
    const title = asString(record["title"])
    return `- ${inline(id)}${title === undefined ? "" : ` ${JSON.stringify(oneLine(title, 120))}`}${
      counts === "" ? "" : ` — ${counts}`
    }${
      openText.length === 0
        ? ""
        : `; open items: ${openText.join("; ")}${
          open.length > openText.length ? `; and ${open.length - openText.length} more` : ""
        }`
    }`
  })
  const research = [
    ...recordsWith(agentic, "research_").map(([id, record]) =>
      `- Research ${inline(id)}${
        withFields(fieldList(record, [["title", "title"], ["status", "status"], ["question", "question"]]))
      }`
    ),
    ...recordsWith(agentic, "run_").map(([id, record]) =>
      `- Agent run ${inline(id)}${
        withFields(
          fieldList(record, [["status", "status"], ["role", "role"], ["passesUsed", "passes used"], [
            "passBudget",
            "pass budget"
          ]])
        )
      }`
    ),
    ...recordsWith(agentic, "source_").map(([id, record]) =>
      `- Source ${inline(id)} (fetched content)${
        withFields(
          fieldList(record, [["url", "URL"], ["title", "title"], ["contentPath", "content at"], [
            "fetchedAt",
            "fetched at"
          ]])
        )
      }`
    ),
    ...agentic.snippets.slice(0, 10).map((snippet) =>
      `- Search result ${inline(snippet.url)}${
        snippet.title === "" ? "" : ` ${JSON.stringify(oneLine(snippet.title, 120))}`
      }: discovery only, a snippet, not fetched content`
    ),
    ...(agentic.snippets.length > 10
      ? [`- … and ${agentic.snippets.length - 10} more search results, discovery only`]
      : [])
  ]
  const capabilities = agentic.capabilities === undefined
    ? []
    : Object.entries(agentic.capabilities).map(([key, value]) =>
      `- ${key}: ${
        Json.isObject(value)
          ? Object.entries(value).map(([inner, innerValue]) =>
            `${inner} ${inline(scalar(innerValue) ?? oneLine(Json.stringifyOrUndefined(innerValue) ?? "", 80))}`
          ).join(", ")
          : inline(scalar(value) ?? oneLine(Json.stringifyOrUndefined(value) ?? "", 120))
      }`
    )
  const permissions = [
    ...(agentic.permissionMode === undefined ? [] : [`- Permission mode: ${inline(agentic.permissionMode)}`]),
    ...capabilities
  ]
  return [
    [SummaryPrompt.pendingApprovals, approvals],
    [SummaryPrompt.plans, plans],
    [SummaryPrompt.transactions, transactions],
    [SummaryPrompt.commandsAndJobs, jobs],
    [SummaryPrompt.taskBoards, boards],
    [SummaryPrompt.agentRunsAndResearch, research],
    [SummaryPrompt.permissionsAndCapabilities, permissions]
  ]
}
