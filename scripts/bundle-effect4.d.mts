import type { Plugin } from "esbuild"

/** The esbuild plugin that builds the program on Effect 4 (bundle-effect4.mjs). */
export declare const effect4Plugin: Plugin
