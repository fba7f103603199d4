/**
 * The built-in policy for agentic-workspace/v1 tool results (SPEC R1).
 *
 * @since 0.1.0
 */
import * as BuiltInPolicies from "../src/internal/reduce/BuiltInPolicies.js"
import * as Policy from "../src/Policy.js"
import type * as Rule from "../src/Rule.js"

const policy = BuiltInPolicies.agenticWorkspaceV1(Policy.kit)

/**
 * Every built-in rule of the protocol, composed. Precedence does the rest:
 * declared omissions first, the verbatim resume, then what is kept, then the
 * array cap and bulky pruning for everything else.
 *
 * @since 0.1.0
 * @category rules
 */
export const agenticWorkspaceV1Rule: Rule.Rule = policy.agenticWorkspaceV1Rule

/**
 * The recovery calls of R1.8, filled with the envelope's ids when the reduced
 * envelope does not fit the cap.
 *
 * @since 0.1.0
 * @category constants
 */
// The core's recovery calls here are this face's: built with its kit.
export const recoveryCalls = policy.recoveryCalls as ReadonlyArray<Policy.RecoveryCall>

/**
 * The agentic-workspace/v1 policy: accepts envelopes of that protocol, reduces
 * them with {@link agenticWorkspaceV1Rule}, carries the staged approval past
 * the cap, and falls back to the recovery list of R1.7 when the reduced
 * envelope still does not fit.
 *
 * @since 0.1.0
 * @category policies
 */
export const agenticWorkspaceV1: Policy.Policy = policy.agenticWorkspaceV1
