export * from "./types.js";
export * from "./checks.js";
export * from "./pulls.js";
export * from "./refs.js";
export * from "./reviews.js";
export * from "./comments.js";
export * from "./threads.js";
