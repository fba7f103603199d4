/**
 * The built-in retention rules (SPEC R1), built with the face's constructors: one object per
 * concept, whose rules `src/face/rules/X.ts` gives with their documentation. The constants the
 * rules are made of live here too; those modules export them with their rules.
 *
 * @since 0.1.0
 */
import * as EnvelopeData from "../../../core/reduce/EnvelopeData.js"
import * as Reduce from "../../../core/reduce/Reduce.js"
import * as Ids from "../../../core/working-state/Ids.js"
import * as Decision from "../Decision.js"
import { all, bulky, cap, clip, forTool, keep, omit, prune, verbatim } from "../Rule.js"
import { declared, path } from "../Selector.js"

/**
 * R1.2: declared omissions (`Omissions.omitDeclared`, `Reduce.omitDeclared`).
 *
 * @since 0.1.0
 * @category rules
 */
export const omissions = {
  omitDeclared: omit(declared(Reduce.declaredOmissions.at, Reduce.declaredOmissions.refuse), {
    name: Reduce.declaredOmissions.name,
    reason: Reduce.declaredOmissions.reason
  })
}

/** @since 0.1.0 @category constants */
export const counterSuffixes = ["Omitted", "Bytes", "Chars", "Entries", "Lines"] as const

const truncationReason = "a partial read must never be mistaken for a whole one"

/**
 * R1.3: truncation flags and their counters.
 *
 * @since 0.1.0
 * @category rules
 */
export const truncation = {
  keepTruncationFlags: all(
    keep(path("**.truncated", "boolean"), { name: "keepTruncationFlags", reason: truncationReason }),
    keep(path("**.*Truncated", "boolean"), { name: "keepTruncationFlags", reason: truncationReason })
  ),
  keepTruncationCounters: all(
    ...counterSuffixes.map((suffix) =>
      keep(path(`**.*${suffix}`, "number"), { name: "keepTruncationCounters", reason: truncationReason })
    )
  )
}

/**
 * The envelope's header, retention block and ids: what names the state.
 *
 * @since 0.1.0
 * @category rules
 */
export const identity = {
  keepHeader: all(
    ...["protocol", "tool", "action", "ok"].map((path) =>
      keep(path, { name: "keepHeader", reason: "the header names the tool and action that produced the result" })
    )
  ),
  keepRetention: all(
    ...["retention.importance", "retention.facts", "retention.omit_when_summarizing"].map((path) =>
      keep(path, { name: "keepRetention", reason: "the producer's own statement of what matters in this result" })
    )
  ),
  keepIds: keep(path("**.id", "string"), {
    name: "keepIds",
    reason: "an id is what the agent needs to re-read the rest"
  })
}

/** @since 0.1.0 @category constants */
export const resumeRecovery = "workspace_inspect { action: \"changes\" }"

/** @since 0.1.0 @category constants */
export const approvalFields = ["id", "kind", "title", "destructive"] as const

/**
 * R1.4: staged approvals.
 *
 * @since 0.1.0
 * @category rules
 */
export const approvals = {
  keepStagedApproval: all(
    ...["data.status", "data.mode", ...approvalFields.map((field) => `data.approval.${field}`)].map((path) =>
      keep(path, {
        name: "keepStagedApproval",
        reason: "a staged approval must survive so the model can resume it after the user types /accept"
      })
    )
  ),
  carryResumeVerbatim: verbatim("data.approval.resume", {
    name: "carryResumeVerbatim",
    reason: "the resume call must hash to the staged approval: it is carried whole or not at all",
    limit: new Decision.VerbatimLimit({
      measure: "arguments",
      maxChars: EnvelopeData.resumeLimitChars,
      recovery: resumeRecovery,
      idPath: "data.approval.id",
      idKey: "approvalId"
    })
  })
}

/** @since 0.1.0 @category constants */
export const arrayCap = 20

/** @since 0.1.0 @category constants */
export const bulkyChars = 1_200

/**
 * R1.6 and R1.7: the generic array cap and the pruning of unrelated bulky text.
 *
 * @since 0.1.0
 * @category rules
 */
export const generic = {
  capArrays: cap(path("**", "array"), arrayCap, {
    name: "capArrays",
    reason: `arrays longer than ${arrayCap} keep their first ${arrayCap} entries and say how many were left out`
  }),
  pruneBulky: bulky(path("**", "string"), {
    name: "pruneBulky",
    reason: "unrelated bulky text is cut to its head and tail; binary data says only its size",
    maxChars: bulkyChars,
    elideBinary: true
  })
}

/** @since 0.1.0 @category constants */
export const capabilityFields = ["commitEdits", "allowCommands", "allowWeb", "role", "budget"] as const

/** @since 0.1.0 @category constants */
export const permissionFields = ["permissionMode", "activePlan", "pendingPlan", "pendingApprovals"] as const

/**
 * R1.3: capabilities and permission fields.
 *
 * @since 0.1.0
 * @category rules
 */
export const capabilities = {
  keepCapabilities: forTool(
    all(
      ...capabilityFields.map((field) =>
        keep(`data.capabilities.${field}`, {
          name: "keepCapabilities",
          reason: "the workspace's capabilities decide which tools the model may plan around"
        })
      )
    ),
    "workspace_inspect"
  ),
  keepPermissionFields: all(
    ...permissionFields.flatMap((field) =>
      [`data.${field}`, `data.capabilities.${field}`].map((path) =>
        keep(path, {
          name: "keepPermissionFields",
          reason: "the permission mode and pending plans and approvals gate what the model may do next"
        })
      )
    )
  )
}

/** @since 0.1.0 @category constants */
export const recentCollections = [
  "recentTransactions",
  "recentRuns",
  "recentTaskBoards",
  "recentResearchProjects"
] as const

/**
 * R1.3: the overview's recent collections and the research wrappers.
 *
 * @since 0.1.0
 * @category rules
 */
export const collections = {
  keepRecentCollections: forTool(
    all(
      ...recentCollections.map((collection) =>
        keep(`data.${collection}`, {
          name: "keepRecentCollections",
          reason: "the overview's recent collections are the index of what the workspace holds"
        })
      )
    ),
    "workspace_inspect",
    "overview"
  ),
  keepResearchWrappers: forTool(
    all(
      ...["data.project", "data.agentRun"].map((path) =>
        keep(path, {
          name: "keepResearchWrappers",
          reason: "the research project and the agent run doing it are what a deep research result resumes from"
        })
      )
    ),
    "workspace_research",
    "deep"
  )
}

/** @since 0.1.0 @category constants */
export const planFields = ["id", "status", "revision", "supersedes", "planPath"] as const

/**
 * R1.5: plans.
 *
 * @since 0.1.0
 * @category rules
 */
export const plans = {
  keepPlans: all(
    ...[...planFields.map((field) => `data.plan.${field}`), "data.propose"].map((path) =>
      keep(path, {
        name: "keepPlans",
        reason: "the plan's id, status and revision, and the call that accepts it, are what the model acts on"
      })
    )
  )
}

/** @since 0.1.0 @category constants */
export const indexEntryFields = ["id", "kind", "status", "title", "path"] as const

/** @since 0.1.0 @category constants */
export const jobFields = ["id", "status", "executable", "exitCode", "startedAt"] as const

const indexReason = "the changes index is entry-per-id: each entry keeps what identifies it, the rest is pruned"

/**
 * R1.5: the changes index, and the job and transaction records it points to.
 *
 * @since 0.1.0
 * @category rules
 */
export const records = {
  keepChangesIndex: forTool(
    all(
      keep("data.limit", { name: "keepChangesIndex", reason: indexReason }),
      ...["approvals", "plans", "jobs"].flatMap((list) => {
        const fields: ReadonlyArray<string> = list === "jobs"
          ? [...new Set([...indexEntryFields, ...jobFields])]
          : indexEntryFields
        return [
          ...fields.map((field) => keep(`data.${list}.${field}`, { name: "keepChangesIndex", reason: indexReason })),
          prune(`data.${list}.*`, { name: "keepChangesIndex", reason: indexReason })
        ]
      })
    ),
    "workspace_inspect",
    "changes"
  ),
  keepJobRecords: all(
    ...jobFields.map((field) =>
      keep(`data.job.${field}`, {
        name: "keepJobRecords",
        reason: "a command's job id and exit code say whether it ran and how it ended"
      })
    )
  ),
  keepTransactionRecords: all(
    ...["id", "status", "files"].map((field) =>
      keep(`data.transaction.${field}`, {
        name: "keepTransactionRecords",
        reason: "a transaction's id and files are what a commit or a review re-reads"
      })
    )
  )
}

/** @since 0.1.0 @category constants */
export const sourceFields = [
  "id",
  "url",
  "title",
  "fetchedAt",
  "timestamp",
  "sha256",
  "hash",
  "contentPath",
  "fetched"
] as const

/** @since 0.1.0 @category constants */
export const snippetChars = 300

const snippetReason = "a search snippet is discovery output: where to look, not what the page says"

/**
 * R1.9: fetched sources and search snippets.
 *
 * @since 0.1.0
 * @category rules
 */
export const sources = {
  keepSourcesNotSnippets: forTool(
    all(
      ...sourceFields.map((field) =>
        keep(`data.sources.${field}`, {
          name: "keepSources",
          reason: "a fetched source is cited by URL, time, hash and stored content path"
        })
      ),
      ...["url", "title", "fetched"].map((field) =>
        keep(`data.snippets.${field}`, { name: "keepSnippetsAsDiscovery", reason: snippetReason })
      ),
      clip("data.snippets.snippet", snippetChars, { name: "keepSnippetsAsDiscovery", reason: snippetReason })
    ),
    "workspace_research"
  )
}

/** @since 0.1.0 @category constants */
export const idPrefixes: typeof Ids.idPrefixes = Ids.idPrefixes
