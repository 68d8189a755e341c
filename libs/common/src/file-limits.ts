/** The file operations' limits (docs/protocol.md, "Files"): the catalog's file routes and the runtime's `fs/*` handlers read them. */
export const FILE_LIMITS = {
  /** Longest path, in UTF-8 bytes (Linux PATH_MAX). */
  maxPathBytes: 4096,
  maxExcludePatterns: 256,
  maxPatternLength: 1024,
  /** Most paths one `fs/delete` (and `POST /devices/:device/files/delete`) takes; the SDK sends batches. */
  maxDeletePaths: 500,
  /** Longest `fs/ls` answer (about a million entries): the runtime refuses a bigger directory, the server cuts a longer answer. */
  maxListingBytes: 128 * 1024 * 1024,
} as const;
