/**
 * The agentic-workspace records the offline summariser reads from a span's
 * envelopes (id-bearing records, staged approvals and who answered them,
 * plans, transactions, jobs, task boards, research, search snippets, the
 * permission mode and capabilities) and the bodies of the agentic sections it
 * writes of them; with the one-line wording both use. In the shared core: both
 * faces' `SummarizerOffline` run it.
 *
 * @since 0.1.0
 */
import * as SummaryPrompt from "../block/SummaryInstruction.js"
import * as JsonTree from "../json/JsonTree.js"
import * as JsonWrite from "../json/JsonWrite.js"
import * as Clip from "../reduce/Clip.js"
import * as Envelope from "../reduce/EnvelopeData.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as Approvals from "../working-state/Approvals.js"
import * as Ids from "../working-state/Ids.js"
import * as ToolResultRead from "../working-state/ToolResultRead.js"
import * as Rendering from "../working-state/WorkingStateRender.js"

/** A value in inline code. */
export const inline: (text: string) => string = Rendering.inlineCode

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
  const tool = asString(JsonTree.getOwn(resume, "tool"))
  const args = JsonTree.getOwn(resume, "arguments")
  const argsText = args === undefined ? undefined : JsonWrite.stringifyOrUndefined(args)
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

const prefixOf = (id: string): string | undefined => Ids.idPrefixes.find((prefix) => id.startsWith(prefix))

/** Walks an envelope for id-bearing records, snippets, and the workspace's modes; bounded in depth and count. */
const collectEnvelope = (
  envelope: Envelope.Envelope,
  toolCallId: string,
  position: number,
  into: AgenticRecords
): void => {
  const data = envelope.data
  if (Approvals.stages(envelope)) {
    const approval = JsonTree.getOwn(data, "approval")
    const id = asString(JsonTree.getOwn(approval, "id")) ?? `(approval of call ${toolCallId})`
    const destructive = JsonTree.getOwn(approval, "destructive")
    into.approvals.push({
      position,
      answeredIn: undefined,
      id,
      kind: asString(JsonTree.getOwn(approval, "kind")) ?? "unknown kind",
      title: asString(JsonTree.getOwn(approval, "title")) ?? envelope.summary ?? `${envelope.tool} ${envelope.action}`,
      destructive: typeof destructive === "boolean" ? destructive : undefined,
      toolCallId,
      resumeCall: resumeCall(JsonTree.getOwn(approval, "resume"), id)
    })
  }
  const permissionMode = asString(JsonTree.getOwn(data, "permissionMode"))
  if (permissionMode !== undefined) into.permissionMode = permissionMode
  const activePlan = JsonTree.getOwn(data, "activePlan")
  if (typeof activePlan === "string" || activePlan === null) into.activePlan = activePlan ?? "none"
  const pendingPlan = JsonTree.getOwn(data, "pendingPlan")
  if (typeof pendingPlan === "string" || pendingPlan === null) into.pendingPlan = pendingPlan ?? "none"
  const capabilities = JsonTree.getOwn(data, "capabilities")
  if (JsonTree.isObject(capabilities)) into.capabilities = { ...into.capabilities, ...capabilities }

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
    const id = asString(JsonTree.getOwn(record, "id"))
    const prefix = id === undefined ? undefined : prefixOf(id)
    // A resume record's arguments are a call to make, not state the workspace reports.
    if (!inResume && id !== undefined && prefix !== undefined && !id.includes(".")) {
      const kept: Record<string, unknown> = {}
      for (const field of recordFields[prefix] ?? []) {
        const value = JsonTree.getOwn(record, field)
        if (value !== undefined) kept[field] = value
      }
      into.records.set(id, { ...into.records.get(id), ...kept })
    }
    const snippet = JsonTree.getOwn(record, "snippet")
    const url = asString(JsonTree.getOwn(record, "url"))
    if (!inResume && typeof snippet === "string" && url !== undefined && JsonTree.getOwn(record, "fetched") !== true) {
      into.snippets.push({ url, title: asString(JsonTree.getOwn(record, "title")) ?? "" })
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
    const envelope = ToolResultRead.envelopeOf(message.content)
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
      const status = asString(JsonTree.getOwn(item, "status"))
      return status === undefined || !/^(?:done|completed|closed|cancelled|canceled)$/i.test(status)
    })
    const openText = open.slice(0, 12).map((item) => {
      const itemId = asString(JsonTree.getOwn(item, "id"))
      const text = asString(JsonTree.getOwn(item, "text")) ?? asString(JsonTree.getOwn(item, "title")) ?? ""
      const status = asString(JsonTree.getOwn(item, "status"))
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
        JsonTree.isObject(value)
          ? Object.entries(value).map(([inner, innerValue]) =>
            `${inner} ${inline(scalar(innerValue) ?? oneLine(JsonWrite.stringifyOrUndefined(innerValue) ?? "", 80))}`
          ).join(", ")
          : inline(scalar(value) ?? oneLine(JsonWrite.stringifyOrUndefined(value) ?? "", 120))
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
