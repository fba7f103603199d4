/**
 * R1.6: the generic array cap.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.generic

/**
 * The generic array cap; also the producer's default listing limit, so a full
 * `workspace_inspect { action: "changes" }` listing survives whole.
 *
 * @example
 * ```ts
 * import { ArrayCap } from "context-compressor/rules"
 *
 * // The producer lists 20 entries by default, so a full listing is never capped.
 * assert.strictEqual(ArrayCap.arrayCap, 20)
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const arrayCap = BuiltInRules.arrayCap

/**
 * Caps every array at {@link arrayCap} entries and records the rest in a
 * sibling `…Omitted` counter (inside an array, {@link arrayCap} entries and a
 * last `{ "arrayEntriesOmitted": n }` entry). Verbatim values are exempt.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce } from "context-compressor"
 * import { ArrayCap } from "context-compressor/rules"
 *
 * const capped = Policy.make({
 *   name: "capped",
 *   description: "agentic-workspace/v1 results with their arrays capped",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: ArrayCap.capArrays
 * })
 * const files = Array.from({ length: 25 }, (_, n) => `src/mod${n}/index.ts`)
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_edit",
 *   action: "show",
 *   ok: true,
 *   data: { transaction: { id: "tx_69319874", files } }
 * }
 * const { transaction } = JSON.parse(Reduce.reduce(result, { policies: [capped] }).text).data
 * assert.deepStrictEqual(transaction.files, files.slice(0, ArrayCap.arrayCap))
 * // The sibling counter says how many entries were left out.
 * assert.strictEqual(transaction.filesOmitted, 5)
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const capArrays: Rule.Rule = rules.capArrays
