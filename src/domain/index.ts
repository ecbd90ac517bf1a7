export * from "./types.js";
export * from "./location.js";
export * from "./diff.js";
export * from "./verdict.js";
export * from "./identity.js";
