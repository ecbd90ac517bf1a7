export * from "./escape.js";
export * from "./limits.js";
export * from "./markdown.js";
export * from "./format.js";
export * from "./check-run.js";
export * from "./annotations.js";
export * from "./inline-comment.js";
