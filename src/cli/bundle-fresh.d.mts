/** Types of bundle-fresh.mjs (plain JavaScript: bin.mjs runs it before tsx is loaded). */
export declare const ALSO_HASHED: readonly string[];
export declare function sha1(bytes: string | Uint8Array): string;
export declare function hashFiles(root: string, files: readonly string[]): Record<string, string>;
export declare function freshBundle(root: string): string | null;
