import { packageVersion } from "../PackageRoot.js"

export const version: string = packageVersion()
