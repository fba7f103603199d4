import type { BuildOptions } from "esbuild"

/** The esbuild options every bundle of the program shares (see bundle-options.mjs). */
export declare const bundleOptions: BuildOptions & { readonly external: Array<string> }
