/**
 * The slash-command vocabulary of diffward, as read from the verb table (`./table.ts`): verbs, aliases,
 * which resolution status each resolution verb sets, and the syntax line shown in help and error messages.
 */
export { CommandForm, CONVERSATION_PREFIX } from "./form.js";
export { RESOLUTION_VERBS, isResolutionVerb, type ResolutionVerb } from "./verbs/resolution.js";
export {
  Verb,
  FINDING_VERBS,
  PULL_REQUEST_VERBS,
  VERB_ALIASES,
  canonicalVerb,
  isFindingVerb,
  verbSyntax,
} from "./table.js";
