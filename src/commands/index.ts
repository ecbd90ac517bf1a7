/**
 * The public face of `src/commands/`: the slash-command parser, the verb table and its modules, the help
 * text, and the shape of a verb. Pure except for the verbs' `read`/`apply` steps, which reach GitHub and
 * diffward's state only through the `CommandIO` ports the command job gives them.
 */
export * from "./verb-parts.js";
export * from "./verb-module.js";
export * from "./table.js";
export * from "./parse.js";
export * from "./help.js";
export { RESOLUTION_VERBS, isResolutionVerb, type ResolutionVerb } from "./verbs/resolution.js";
export { resolveTarget, chooseFinding, namedElsewhereNotice } from "./finding-target.js";
