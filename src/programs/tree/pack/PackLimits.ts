// Kept apart from the pack programs so the CLI can show the default without loading them.

const gib = 1024 * 1024 * 1024
/** The most bytes a pack may unpack to unless the caller raises it: a gzip bomb fills no disk. */
export const defaultMaxBytes = 64 * gib
