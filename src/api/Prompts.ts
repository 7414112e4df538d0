/** Prompt packs: the packaged ones (`en`, `zh`) or a folder of your own, loaded into a PromptManager. */
export {
  type PromptManager,
  PromptPackError,
  PromptPackErrorReason,
  type SkillMode
} from "../programs/prompts/PromptManager.js"
export {
  loadPromptManager,
  packagedPacks,
  packagedPromptsDir,
  resolvePromptsDir
} from "../programs/prompts/PromptPack.js"
