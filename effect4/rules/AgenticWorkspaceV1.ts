/**
 * The built-in policy for agentic-workspace/v1 tool results (SPEC R1). On Effect 4: the shared core's `agenticWorkspaceV1` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `AgenticWorkspaceV1`.
 *
 * @since 0.1.0
 */
import * as BuiltInPolicies from "../../src/internal/reduce/BuiltInPolicies.js"
import * as Policy from "../src/Policy.js"
import type * as Rule from "../src/Rule.js"

const built = BuiltInPolicies.agenticWorkspaceV1(Policy.kit)

/** @since 0.1.0 */
export const agenticWorkspaceV1Rule: Rule.Rule = built.agenticWorkspaceV1Rule

/** @since 0.1.0 */
// The core's recovery calls here are this face's: built with its kit.
export const recoveryCalls = built.recoveryCalls as ReadonlyArray<Policy.RecoveryCall>

/** @since 0.1.0 */
export const agenticWorkspaceV1: Policy.Policy = built.agenticWorkspaceV1
