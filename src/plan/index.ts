/** Plan assembly and rendering; all pure, all return data or strings. */
export { buildPlan, hasChanges, summarize } from './build.js';
export type { ChangeResults } from './build.js';
export { planToJson, renderPlanJson } from './render-json.js';
export type { JsonRenderOptions } from './render-json.js';
export { planTextChunks, renderPlanText, resultLine, summaryLine, withCode } from './render-text.js';
export type { TextRenderOptions } from './render-text.js';
export { renderPlanGithub } from './render-github.js';
export { GITHUB_COMMENT_LIMIT, MARKDOWN_MARKER, renderPlanMarkdown } from './render-markdown.js';
export type { MarkdownRenderOptions } from './render-markdown.js';
export { approximately, estimateLines, estimateToJson, formatBudget, thousands } from './render-estimate.js';
