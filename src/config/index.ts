export * from "./repo-config.js";
export * from "./json-schema.js";
export * from "./env.js";
