// `vtree build --shard i/n` without a database: each of n machines builds the videos whose id hashes to its
// share. By a hash of the video id (the file's name, what names its tree folder), not of the list: adding a
// file moves no other video to another shard, and nodes that mount the storage at different paths agree.
import { createHash } from "node:crypto"

export interface Shard {
  /** 1-based, as SLURM array indices and other test runners' shards are given. */
  readonly index: number
  readonly count: number
}

/** `i/n` with 1 ≤ i ≤ n, or one line naming the flag and what it takes. */
export const parseShard = (raw: string): { readonly shard: Shard } | { readonly problem: string } => {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw)
  const index = match === null ? Number.NaN : Number(match[1])
  const count = match === null ? Number.NaN : Number(match[2])
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    return {
      problem:
        `--shard ${raw}: expected i/n with whole numbers 1 ≤ i ≤ n (--shard 1/4 … --shard 4/4 split the videos ` +
        `over four machines)`
    }
  }
  return { shard: { index, count } }
}

/** The shard (1 … count) a video belongs to: the first 48 bits of sha256 of its id, modulo count. */
export const shardOf = (videoId: string, count: number): number =>
  Number.parseInt(createHash("sha256").update(videoId).digest("hex").slice(0, 12), 16) % count + 1

export const inShard = (shard: Shard) => (videoId: string): boolean => shardOf(videoId, shard.count) === shard.index
