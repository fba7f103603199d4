/**
 * context-compressor on Effect 4 (docs/effect4.md): the retention-rule algebra and the reduction
 * of tool results, declared on Effect 4's Schema over the shared core, under the names of the
 * Effect 3 entry `context-compressor`. The built-in rules and policies are in
 * `context-compressor/effect4/rules`. The compaction engine, the services and the layers are on
 * Effect 3 only so far.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Condition from "./Condition.js"
/** @since 0.1.0 */
export * as Decision from "./Decision.js"
/** @since 0.1.0 */
export * as Policy from "./Policy.js"
/** @since 0.1.0 */
export * as Reduce from "./Reduce.js"
/** @since 0.1.0 */
export * as Report from "./Report.js"
/** @since 0.1.0 */
export * as Rule from "./Rule.js"
/** @since 0.1.0 */
export * as Selector from "./Selector.js"
