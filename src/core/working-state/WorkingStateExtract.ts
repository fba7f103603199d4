/**
 * The working state's extraction (SPEC R2.8): what a span's tool calls and
 * results say about the files it wrote, the commands it ran, what failed and
 * which ids it holds. Pure and total; `WorkingState` wraps its fields in the
 * model's classes.
 *
 * @since 0.1.0
 */
import * as Boundary from "../checkpoint/Boundary.js"
import * as Json from "../json/JsonTree.js"
import * as Envelope from "../reduce/EnvelopeData.js"
import {
  commandLabel,
  executableText,
  exitOneIsAnAnswer,
  shellCommandText,
  shellToolName
} from "../shell/ShellCommands.js"
import { appliesPatch, patchedInOutput, patchPaths, patchTool, shellTouches } from "../shell/ShellWrites.js"
import * as Steps from "../Steps.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import { resultArtifacts } from "./Artifacts.js"
import { errorOpening, exitCodeOf, failureMessage } from "./Failures.js"
import { argumentPaths, isKeyedPath, normalPath } from "./FilePaths.js"
import { idsOfParsed, idsOfText } from "./Ids.js"
import { failingTestNames, isTestCommand } from "./TestRuns.js"
import { asString, parseJson, readToolResult, walk } from "./ToolResultRead.js"
import type * as WorkingState from "./WorkingState.js"

/**
 * The fields of a working state as the extraction reads and gives them: the
 * model's fields, those a state saved before they existed lacks optional.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fields
  extends Omit<WorkingState.WorkingState, "failures" | "edits" | "standing" | "workingIds" | "testCommands">
{
  readonly failures: ReadonlyArray<FailureFields>
  readonly edits?: ReadonlyArray<FileEditFields>
  readonly standing?: StandingFields | null
  readonly workingIds?: ReadonlyArray<string>
  readonly testCommands?: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export type CommandFields = WorkingState.Command

/**
 * @since 0.1.0
 * @category models
 */
export interface FailureFields extends Omit<WorkingState.Failure, "fixedBy"> {
  readonly fixedBy?: string | null
}

/**
 * @since 0.1.0
 * @category models
 */
export type FileEditFields = WorkingState.FileEdit

/**
 * @since 0.1.0
 * @category models
 */
export type StandingFields = WorkingState.Standing

/**
 * How many recent commands the working state keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCommandLimit = 20

/**
 * How many failures the working state keeps (the most recent).
 *
 * @since 0.1.0
 * @category constants
 */
export const failureLimit = 20

/**
 * How many entries a list of paths keeps (the most recent), so that the state
 * stays small enough to persist and render whatever the span.
 *
 * @since 0.1.0
 * @category constants
 */
export const pathLimit = 200

/**
 * How many protected ids the state keeps (the first seen).
 *
 * @since 0.1.0
 * @category constants
 */
export const protectedIdLimit = 2_000

/**
 * Whether nothing was extracted.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isEmpty = (state: Fields): boolean =>
  state.filesWritten.length === 0 && state.commands.length === 0 && state.artifacts.length === 0 &&
  state.toolsUsed.length === 0 && state.failures.length === 0 && state.unfinishedCalls.length === 0 &&
  state.protectedIds.length === 0 && state.filePaths.length === 0

/** The later run of the same command that exited 0, among the recent commands: the failure's fix (a failure not among them is older). */
const fixOf = (
  failure: FailureFields,
  commands: ReadonlyArray<CommandFields>,
  callPosition: ReadonlyMap<string, number>
): string | null => {
  if (failure.command === null) return null
  const failedAt = callPosition.get(failure.toolCallId) ?? -1
  const fix = commands.find((command) =>
    command.command === failure.command && command.status === "exited" && command.exitCode === 0 &&
    (callPosition.get(command.toolCallId) ?? -1) > failedAt
  )
  return fix?.toolCallId ?? null
}

/** How an editor tool's call changed its files: the tool and its verb, and whether it wrote them whole. */
const editorEdit = (
  name: string,
  args: unknown
): { readonly action: WorkingState.EditAction; readonly via: string } => {
  const verb = asString(Json.getOwn(args, "command")) ?? asString(Json.getOwn(args, "action")) ??
    asString(Json.getOwn(args, "mode")) ?? asString(Json.getOwn(args, "operation"))
  const word = verb !== undefined && /^[a-z_]+$/i.test(verb.trim()) ? verb.trim() : undefined
  const said = `${name} ${word ?? ""}`
  const action: WorkingState.EditAction = /patch|apply/i.test(said)
    ? "patched"
    : /create|write|overwrite|save|put/i.test(said)
    ? "written"
    : "edited"
  return { action, via: word === undefined ? name : `${name} ${word}` }
}

const readVerb =
  /^(?:view|read|show|list|ls|cat|get|open|search|find|grep|glob|status|diff|inspect|stat|head|tail|preview|describe|current|next)$/i
const writeVerb =
  /write|edit|create|patch|apply|replace|insert|append|save|update|modify|overwrite|rename|move|mkdir|touch|stage|commit|put/i

const isWriteCall = (name: string, args: unknown): boolean => {
  const verb = asString(Json.getOwn(args, "command")) ?? asString(Json.getOwn(args, "action")) ??
    asString(Json.getOwn(args, "mode")) ?? asString(Json.getOwn(args, "operation"))
  if (verb !== undefined && readVerb.test(verb.trim())) return false
  if (verb !== undefined && /^[a-z_]+$/i.test(verb.trim()) && writeVerb.test(verb)) return true
  return writeVerb.test(name)
}

/** An insertion-ordered set that keeps the most recent `limit` entries. */
class RecentSet {
  private readonly entries = new Map<string, true>()
  constructor(private readonly limit: number) {}
  add(value: string): void {
    this.entries.delete(value)
    this.entries.set(value, true)
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!)
  }
  addFirst(value: string): void {
    if (!this.entries.has(value)) this.add(value)
  }
  values(): Array<string> {
    return Array.from(this.entries.keys())
  }
}

/**
 * Extracts the working state of a span. Pure and total: broken JSON
 * arguments, odd shapes and huge contents are read as far as they can be.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extract = (span: Transcript.Transcript): Fields => Steps.runSync(extractSteps(span))

/**
 * The Python scripts a span writes from here-documents (`cat > /tmp/fix.py
 * <<'EOF'`), by path, the newest text of each: what running one of them in a
 * later span writes. Only the commands with a here-document are read.
 *
 * @since 0.1.0
 * @category constructors
 */
export const scriptsWritten = (
  span: Transcript.Transcript,
  scripts: Map<string, string> = new Map()
): Map<string, string> => {
  for (const message of span) {
    if (message._tag !== "Assistant") continue
    for (const call of message.toolCalls) {
      if (!call.arguments.includes("<<") || !call.arguments.includes(".py")) continue
      const shell = shellCommandText(call.name, parseJson(call.arguments), call.arguments)
      if (shell !== undefined) shellTouches(shell, scripts)
    }
  }
  return scripts
}

/**
 * {@link extract} as steps that pause every few messages, for a caller that
 * lets the event loop run meanwhile (`Cooperative.run`).
 *
 * @since 0.1.0
 * @category constructors
 */
export function* extractSteps(
  span: Transcript.Transcript,
  scriptsBefore?: ReadonlyMap<string, string>,
  staged?: Boundary.Staged | undefined
): Steps.Steps<Fields> {
  const calls = new Map<string, { readonly name: string; readonly args: Json.Json | undefined; readonly raw: string }>()
  const results = new Map<string, { readonly content: string; readonly envelope: Envelope.Envelope | undefined }>()
  const resultsInOrder: Array<
    {
      readonly message: Transcript.ToolResult
      readonly content: string
      readonly envelope: Envelope.Envelope | undefined
    }
  > = []
  const callOrder: Array<string> = []

  // The most recent ids win: in a long history the newest state is what the agent resumes from.
  const protectedIds = new RecentSet(protectedIdLimit)
  const addIds = (ids: ReadonlyArray<string>): void => {
    for (const id of ids) protectedIds.addFirst(id)
  }
  const filesWritten = new RecentSet(pathLimit)
  const filePaths = new RecentSet(pathLimit)
  const artifactCandidates: Array<string> = []
  const toolCounts = new Map<string, number>()
  const shellTexts = new Map<string, string>()
  // Scripts written from here-documents, by path (the history's before the span, then the span's): running one later writes what it opens.
  const scripts = new Map<string, string>(scriptsBefore)

  // Per file, its latest edit; insertion order is recency (an edit moves its file to the end).
  const edits = new Map<string, FileEditFields>()
  const changedSincePass = new Set<string>()
  const recordEdit = (named: string, action: WorkingState.EditAction, via: string, toolCallId: string): void => {
    // `./pkg/mod.py` and `pkg/mod.py` are one file: a script's path and git's name of it.
    const path = normalPath(named)
    const known = edits.get(path)
    edits.delete(path)
    edits.set(path, { path, action, via, toolCallId, times: (known?.times ?? 0) + 1 })
    if (edits.size > pathLimit) edits.delete(edits.keys().next().value!)
    filesWritten.add(path)
    changedSincePass.delete(path)
    changedSincePass.add(path)
  }
  let lastTestRun: { readonly id: string; readonly failing: ReadonlyArray<string> } | undefined
  let lastPassingRun: string | null = null

  let handled = 0
  for (const message of span) {
    if (++handled % Steps.itemsPerStep === 0) yield
    switch (message._tag) {
      case "System":
      case "User":
      case "Compacted":
        addIds(idsOfText(message.content))
        break
      case "Assistant": {
        addIds(idsOfText(message.content))
        for (const call of message.toolCalls) {
          const args = parseJson(call.arguments)
          addIds(idsOfParsed(call.arguments, args))
          calls.set(call.id, { name: call.name, args, raw: call.arguments })
          callOrder.push(call.id)
          toolCounts.set(call.name, (toolCounts.get(call.name) ?? 0) + 1)

          const keyed = args === undefined ? [] : argumentPaths(args).map(normalPath)
          for (const path of keyed) filePaths.addFirst(path)
          const patchText: Array<string> = []
          walk(args ?? call.arguments, (_, node) => {
            // A diff inside a shell here-document is a file being written, not applied.
            if (
              typeof node === "string" &&
              (node.includes("*** Begin Patch") || (patchTool.test(call.name) && node.includes("+++ ")))
            ) patchText.push(node)
          })
          const patched = patchText.flatMap(patchPaths).map(normalPath)
          for (const path of patched) {
            recordEdit(path, "patched", patchTool.test(call.name) ? call.name : "apply_patch", call.id)
            filePaths.addFirst(path)
          }
          if (args !== undefined && isWriteCall(call.name, args)) {
            const { action, via } = editorEdit(call.name, args)
            for (const path of keyed) if (!patched.includes(path)) recordEdit(path, action, via, call.id)
          }
          const shell = shellCommandText(call.name, args, call.arguments)
          if (shell !== undefined) {
            shellTexts.set(call.id, shell)
            const touched = shellTouches(shell, scripts)
            for (const touch of touched.written) {
              if (!patched.includes(normalPath(touch.path))) recordEdit(touch.path, touch.action, touch.via, call.id)
            }
            for (const path of touched.mentioned) filePaths.addFirst(normalPath(path))
          }
        }
        break
      }
      case "ToolResult": {
        const { content, envelope, parsed } = readToolResult(message.content)
        addIds(idsOfParsed(content, parsed))
        if (!results.has(message.toolCallId)) results.set(message.toolCallId, { content, envelope })
        resultsInOrder.push({ message, content, envelope })
        if (envelope !== undefined) {
          const files = Json.getPath(envelope, "data.transaction.files")
          const transaction = asString(Json.getPath(envelope, "data.transaction.id"))
          const via = transaction === undefined ? `${envelope.tool} ${envelope.action}` : `transaction ${transaction}`
          if (Array.isArray(files)) {
            for (const file of files) {
              if (typeof file === "string" && isKeyedPath(file)) recordEdit(file, "edited", via, message.toolCallId)
            }
          }
        }
        const shell = shellTexts.get(message.toolCallId)
        const patching = shell === undefined ? undefined : appliesPatch(shell)
        if (patching !== undefined) {
          for (const path of patchedInOutput(content)) recordEdit(path, "patched", patching, message.toolCallId)
        }
        const ran = shell ??
          (calls.has(message.toolCallId) ? executableText(calls.get(message.toolCallId)!.args) : undefined)
        if (ran !== undefined && isTestCommand(ran)) {
          const exitCode = exitCodeOf(content, envelope)
          lastTestRun = { id: message.toolCallId, failing: exitCode === 0 ? [] : failingTestNames(content) }
          if (exitCode === 0) {
            lastPassingRun = message.toolCallId
            changedSincePass.clear()
          }
        }
        artifactCandidates.push(...resultArtifacts(content, envelope))
        break
      }
    }
  }

  const toolName = (toolCallId: string): string => calls.get(toolCallId)?.name ?? "unknown tool"

  // A staged approval the user already accepted, rejected or denied is finished.
  const stillPending = new Set(Boundary.pendingApprovals(span, staged).map((obligation) => obligation.toolCallId))
  const unfinishedCalls = callOrder.filter((id) => !results.has(id) || stillPending.has(id))

  // What command a call ran, worked out once per call and only for the calls
  // the recent commands and failures need: a long history is not parsed whole.
  const commandCalls = new Map<
    string,
    { readonly text: string; readonly label: string; readonly answersNoMatch: boolean } | null
  >()
  const commandOf = (id: string) => {
    const known = commandCalls.get(id)
    if (known !== undefined) return known
    const call = calls.get(id)
    const result = results.get(id)
    let info: { text: string; label: string; answersNoMatch: boolean } | null = null
    if (call !== undefined) {
      const shell = shellCommandText(call.name, call.args, call.raw)
      const job = result?.envelope === undefined ? undefined : Json.getPath(result.envelope, "data.job")
      const commandText = shell ?? executableText(call.args) ??
        (Json.isObject(job)
          ? [asString(job["executable"]), asString(job["id"]) === undefined ? undefined : `(${asString(job["id"])})`]
            .filter((part) => part !== undefined).join(" ")
          : undefined)
      if (commandText !== undefined && commandText.trim() !== "") {
        info = {
          text: commandText,
          label: commandLabel(commandText),
          answersNoMatch: shell !== undefined && exitOneIsAnAnswer(shell)
        }
      }
    }
    commandCalls.set(id, info)
    return info
  }

  const commandEntry = (id: string, label: string): CommandFields => {
    const result = results.get(id)
    const exitCode = result === undefined ? null : exitCodeOf(result.content, result.envelope)
    const job = result?.envelope === undefined ? undefined : Json.getPath(result.envelope, "data.job")
    const jobStatus = Json.isObject(job) ? asString(job["status"]) : undefined
    const status: WorkingState.CommandStatus = result === undefined
      ? "no-result"
      : stillPending.has(id)
      ? "pending-approval"
      : exitCode !== null
      ? "exited"
      : jobStatus === "running" || jobStatus === "queued" || jobStatus === "started"
      ? "running"
      : "unknown"
    return { toolCallId: id, tool: calls.get(id)!.name, command: label, status, exitCode }
  }

  // The newest commands, walking back from the end until the limit is reached.
  const commands: Array<CommandFields> = []
  for (let i = callOrder.length - 1; i >= 0 && commands.length < recentCommandLimit; i--) {
    const id = callOrder[i]!
    const command = commandOf(id)
    if (command === null) continue
    commands.unshift(commandEntry(id, command.label))
  }

  // The newest failures, likewise.
  const failures: Array<FailureFields> = []
  for (let i = resultsInOrder.length - 1; i >= 0 && failures.length < failureLimit; i--) {
    const { content, envelope, message } = resultsInOrder[i]!
    const tool = message.name ?? toolName(message.toolCallId)
    const exitCode = exitCodeOf(content, envelope)
    const command = calls.has(message.toolCallId) ? commandOf(message.toolCallId) : null
    // An exit code counts only for commands: a file that mentions "exit code 1" is no failure.
    const ranCommand = command !== null || shellToolName.test(tool) || Json.getPath(envelope, "data.job") !== undefined
    const failedExit = ranCommand && exitCode !== null && exitCode !== 0 &&
      !(exitCode === 1 && command?.answersNoMatch === true)
    const failed = envelope !== undefined
      ? envelope.ok === false || failedExit
      : failedExit || errorOpening.test(content.trimStart())
    if (failed) {
      failures.unshift(
        {
          tool,
          toolCallId: message.toolCallId,
          command: command?.label ?? null,
          message: failureMessage(content, envelope),
          exitCode: ranCommand ? exitCode : null
        }
      )
    }
  }

  const callPosition = new Map(commands.map((command, index) => [command.toolCallId, index] as const))
  const fixedFailures = failures.map((failure) => ({ ...failure, fixedBy: fixOf(failure, commands, callPosition) }))

  const written = filesWritten.values()
  const writtenSet = new Set(written)
  const artifacts = new RecentSet(pathLimit)
  for (const path of artifactCandidates) if (!writtenSet.has(path)) artifacts.addFirst(path)

  const lastCommandId = callOrder.findLast((id) => commandOf(id) !== null)
  const standing: StandingFields | null = lastCommandId === undefined && lastTestRun === undefined && edits.size === 0
    ? null
    : {
      lastCommand: lastCommandId === undefined ? null : commandEntry(lastCommandId, commandOf(lastCommandId)!.label),
      lastTestRun: lastTestRun === undefined || commandOf(lastTestRun.id) === null
        ? null
        : commandEntry(lastTestRun.id, commandOf(lastTestRun.id)!.label),
      failingTests: lastTestRun?.failing ?? [],
      lastPassingRun,
      changedSinceLastPass: Array.from(changedSincePass).slice(-pathLimit)
    }

  return ({
    edits: Array.from(edits.values()),
    standing,
    filesWritten: written,
    commands,
    artifacts: artifacts.values(),
    toolsUsed: Array.from(toolCounts, ([name, count]) => ({ name, count })),
    failures: fixedFailures,
    unfinishedCalls,
    protectedIds: protectedIds.values(),
    filePaths: filePaths.values()
  })
}

/**
 * What {@link extend} needs to know of the whole history that the earlier
 * state could not: which staged approvals are still unanswered, and the
 * result of a call, for the calls the earlier state left without one.
 *
 * @since 0.1.0
 * @category models
 */
export interface History {
  /** Tool-call ids whose staged approval is still unanswered in the history. */
  readonly stillPending: ReadonlySet<string>
  /** The result of a call anywhere in the history (the earlier span and the new one), if it has one. */
  readonly resultOf: (toolCallId: string) => Transcript.ToolResult | undefined
  /**
   * The scripts the history before the span wrote from here-documents, by
   * path ({@link scriptsWritten} of it): a script written there and run in the
   * span edits what it opens. Without it, such a run edits nothing known.
   */
  readonly scripts?: ReadonlyMap<string, string> | undefined
  /** The engine's reading of which results stage an approval (`Boundary.Staged`), shared with the plan. */
  readonly staged?: Boundary.Staged | undefined
}

const statusOf = (command: CommandFields, history: History): CommandFields => {
  if (command.status !== "no-result" && command.status !== "pending-approval") return command
  const result = history.resultOf(command.toolCallId)
  if (result === undefined) {
    return command.status === "no-result"
      ? command
      : ({ ...command, status: "no-result", exitCode: null })
  }
  if (history.stillPending.has(command.toolCallId)) {
    return command.status === "pending-approval"
      ? command
      : ({ ...command, status: "pending-approval", exitCode: null })
  }
  const { content, envelope } = readToolResult(result.content)
  const exitCode = exitCodeOf(content, envelope)
  const job = envelope === undefined ? undefined : Json.getPath(envelope, "data.job")
  const jobStatus = Json.isObject(job) ? asString(job["status"]) : undefined
  const status: WorkingState.CommandStatus = exitCode !== null
    ? "exited"
    : jobStatus === "running" || jobStatus === "queued" || jobStatus === "started"
    ? "running"
    : "unknown"
  return ({ ...command, status, exitCode })
}

const extendStanding = (
  previous: StandingFields | null,
  next: StandingFields | null,
  history: History
): StandingFields | null => {
  if (previous === null) return next
  const earlier = {
    ...previous,
    lastCommand: previous.lastCommand === null ? null : statusOf(previous.lastCommand, history),
    lastTestRun: previous.lastTestRun === null ? null : statusOf(previous.lastTestRun, history)
  }
  if (next === null) return earlier
  const changed = new Set(previous.changedSinceLastPass)
  for (const path of next.changedSinceLastPass) {
    changed.delete(path)
    changed.add(path)
  }
  return {
    lastCommand: next.lastCommand ?? earlier.lastCommand,
    lastTestRun: next.lastTestRun ?? earlier.lastTestRun,
    failingTests: next.lastTestRun === null ? earlier.failingTests : next.failingTests,
    lastPassingRun: next.lastPassingRun ?? earlier.lastPassingRun,
    changedSinceLastPass: next.lastPassingRun !== null
      ? next.changedSinceLastPass
      : Array.from(changed).slice(-pathLimit)
  }
}

/**
 * The working state of an earlier span followed by `span`, from the earlier
 * state and `span` alone: what {@link extract} gives for the two spans
 * together, at the cost of the new span only, when `span` starts at a turn
 * start (so no call is cut from its result) and the lists stay under their
 * limits. Commands and calls the earlier state left without a result or
 * waiting for an approval are looked up again in `history`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extend = (previous: Fields, span: Transcript.Transcript, history: History): Fields =>
  Steps.runSync(extendSteps(previous, span, history))

/**
 * {@link extend} as steps that pause every few messages (see {@link extractSteps}).
 *
 * @since 0.1.0
 * @category constructors
 */
export function* extendSteps(
  previous: Fields,
  span: Transcript.Transcript,
  history: History
): Steps.Steps<Fields> {
  if (isEmpty(previous)) return yield* extractSteps(span, history.scripts, history.staged)
  const next = yield* extractSteps(span, history.scripts, history.staged)
  const filesWritten = new RecentSet(pathLimit)
  for (const path of [...previous.filesWritten, ...next.filesWritten]) filesWritten.add(path)
  const written = new Set(filesWritten.values())
  const artifacts = new RecentSet(pathLimit)
  for (const path of [...previous.artifacts, ...next.artifacts]) if (!written.has(path)) artifacts.addFirst(path)
  const protectedIds = new RecentSet(protectedIdLimit)
  for (const id of [...previous.protectedIds, ...next.protectedIds]) protectedIds.addFirst(id)
  const filePaths = new RecentSet(pathLimit)
  for (const path of [...previous.filePaths, ...next.filePaths]) filePaths.addFirst(path)
  const toolCounts = new Map<string, number>()
  for (const use of [...previous.toolsUsed, ...next.toolsUsed]) {
    toolCounts.set(use.name, (toolCounts.get(use.name) ?? 0) + use.count)
  }
  const earlierCommands = next.commands.length >= recentCommandLimit
    ? []
    : previous.commands.slice(-(recentCommandLimit - next.commands.length)).map((command) => statusOf(command, history))
  const stillUnfinished = previous.unfinishedCalls.filter((id) =>
    history.resultOf(id) === undefined || history.stillPending.has(id)
  )
  const edits = new Map<string, FileEditFields>()
  for (const edit of [...(previous.edits ?? []), ...(next.edits ?? [])]) {
    const known = edits.get(edit.path)
    edits.delete(edit.path)
    edits.set(edit.path, { ...edit, times: (known?.times ?? 0) + edit.times })
    if (edits.size > pathLimit) edits.delete(edits.keys().next().value!)
  }
  const commands = [...earlierCommands, ...next.commands]
  const callPosition = new Map(commands.map((command, index) => [command.toolCallId, index] as const))
  // A failed command that is no longer among the recent commands is older than all of them: a later exit 0 among them fixes it.
  const failures = [...previous.failures, ...next.failures].slice(-failureLimit).map((failure) => ({
    ...failure,
    fixedBy: fixOf(failure, commands, callPosition)
  }))
  return ({
    edits: Array.from(edits.values()),
    standing: extendStanding(previous.standing ?? null, next.standing ?? null, history),
    filesWritten: filesWritten.values(),
    commands,
    artifacts: artifacts.values(),
    toolsUsed: Array.from(toolCounts, ([name, count]) => ({ name, count })),
    failures,
    unfinishedCalls: [...stillUnfinished, ...next.unfinishedCalls],
    protectedIds: protectedIds.values(),
    filePaths: filePaths.values()
  })
}
