/**
 * @since 0.1.0
 */
export * from "../../face/rules/index.js"
