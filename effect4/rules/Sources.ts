/**
 * @since 0.1.0
 */
export * from "../../rules/Sources.js"
