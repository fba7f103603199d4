/** Bundles gpt-tokenizer's o200k_base encoding into `outfile` (see vendor-tokenizer.mjs). */
export declare const vendorTokenizer: (outfile: string) => Promise<void>
