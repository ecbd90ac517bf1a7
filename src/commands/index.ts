export * from "./verbs.js";
export * from "./parse.js";
export * from "./help.js";
