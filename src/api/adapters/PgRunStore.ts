/** RunStore over PostgreSQL: one run shared by workers on several machines. */
export { layer, type PgRunStoreOptions } from "../../layers/sql/postgres/PgRunStore.js"
