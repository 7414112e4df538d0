/** RunStore over one SQLite file. */
export { layer, type SqliteRunStoreOptions } from "../../layers/sql/sqlite/SqliteRunStore.js"
