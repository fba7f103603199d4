/**
 * R1.3: capabilities and permission fields. On Effect 4: the shared core's `capabilities` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Capabilities`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.capabilities(Rule.kit)

/** @since 0.1.0 */
export const capabilityFields = BuiltInRules.capabilityFields

/** @since 0.1.0 */
export const permissionFields = BuiltInRules.permissionFields

/** @since 0.1.0 */
export const keepCapabilities: Rule.Rule = built.keepCapabilities

/** @since 0.1.0 */
export const keepPermissionFields: Rule.Rule = built.keepPermissionFields
