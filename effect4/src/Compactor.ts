/**
 * @since 0.1.0
 */
export * from "../../src/Compactor.js"
