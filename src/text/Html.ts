// Text from a model, a question file or a tree, made safe to place in an html page: the run report, the
// comparison page and the tree page all escape through here.

export const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&#39;"
  )
