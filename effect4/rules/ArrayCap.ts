/**
 * @since 0.1.0
 */
export * from "../../rules/ArrayCap.js"
