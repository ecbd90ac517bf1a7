/**
 * `/diffward areas add <name>: <description>` and `/diffward areas remove <key>`: a repository's custom
 * audit areas, from the pull request (spec §Repositories, `POST …/repositories/{repositoryId}/audit-areas`
 * and `DELETE …/audit-areas/{areaKey}`, both scope `guidance:write`). The listing is
 * `/diffward areas` (`./info.ts`).
 *
 * Floor: `commands.minPermission`, like every verb that changes something in the service. The service
 * token must carry `guidance:write` (`GET /token` scopes): without it the answer says so and nothing is
 * sent. Only `custom` areas can be removed: a `discovered` one (named by the service's map of the
 * repository) is refused with 409, and the answer explains how to leave it out of scans instead.
 */
import { z } from "zod";
import { inlineCode, neutralize } from "../../render/escape.js";
import { ScannerApiError } from "../../scanner/errors.js";
import { commandError, echo, commandName, unexpected, type VerbArgs } from "../verb-parts.js";
import type { ErrorCommand } from "../verb-parts.js";
import { answerOnly, configOf, defineVerb, tenantOf, VERB_NEEDS } from "../verb-module.js";
import type { CommandIO, CommandOutcome, VerbInput } from "../verb-module.js";

/** The token scope both writes need (spec §Repositories). */
export const AREAS_WRITE_SCOPE = "guidance:write";
/** Longest area name diffward sends, in characters (the spec gives none; a name is a short title). */
export const MAX_AREA_NAME = 200;
/** Longest area description diffward sends, in characters (the spec gives none). */
export const MAX_AREA_DESCRIPTION = 5_000;

/** `POST …/audit-areas` with `name` and `description`: a `custom` area. */
export const AreasAddCommand = z.object({
  ...commandName("areas-add", "areas add"),
  name: z.string().min(1).max(MAX_AREA_NAME),
  description: z.string().min(1).max(MAX_AREA_DESCRIPTION),
});
export type AreasAddCommand = z.infer<typeof AreasAddCommand>;

/** `DELETE …/audit-areas/{areaKey}`. */
export const AreasRemoveCommand = z.object({
  ...commandName("areas-remove", "areas remove"),
  key: z.string().min(1).max(200),
});
export type AreasRemoveCommand = z.infer<typeof AreasRemoveCommand>;

/**
 * `areas add <name>: <description>`: the name is the text before the first `:` of the command line, the
 * description the rest (the lines below the command line are part of it).
 */
export function parseAreasAdd(a: VerbArgs): AreasAddCommand | ErrorCommand {
  const colon = a.args.indexOf(":");
  const name = colon >= 0 ? a.args.slice(0, colon).trim() : a.args.trim();
  const description = [colon >= 0 ? a.args.slice(colon + 1).trim() : "", a.rest.trim()]
    .filter(Boolean)
    .join("\n");
  if (!name || !description)
    return commandError(
      "areas add",
      "missing_argument",
      `\`areas add\` needs a name and a description separated by a colon: ${a.syntax}, e.g. \`/diffward areas add Billing: invoices, payment webhooks and refunds\`.`,
    );
  if ([...name].length > MAX_AREA_NAME || [...description].length > MAX_AREA_DESCRIPTION)
    return commandError(
      "areas add",
      "invalid_argument",
      `The area's name may have up to ${MAX_AREA_NAME} characters and its description up to ${MAX_AREA_DESCRIPTION.toLocaleString("en-US")}; nothing was added.`,
    );
  return { kind: "areas-add", verb: "areas add", requiresPermission: true, name, description };
}

function parseAreasRemove(a: VerbArgs): AreasRemoveCommand | ErrorCommand {
  const words = a.args.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0)
    return commandError(
      "areas remove",
      "missing_argument",
      `\`areas remove\` needs the area's key (see \`/diffward areas\`): ${a.syntax}.`,
    );
  if (words.length > 1) return unexpected("areas remove", words.slice(1).join(" "), a.syntax);
  const key = words[0]!.replace(/^`+|`+$/g, "");
  if (!key || key.length > 200)
    return commandError("areas remove", "invalid_argument", `\`${echo(words[0]!)}\` is not an area key.`);
  return { kind: "areas-remove", verb: "areas remove", requiresPermission: true, key };
}

/** The answer when the service token lacks `guidance:write`: nothing is sent. */
export function missingScopeAnswer(what: string, scopes: readonly string[] | "refused"): string {
  const seen =
    scopes === "refused"
      ? "the service refused the request with 403 `forbidden`"
      : `it has ${scopes.length ? scopes.map((s) => inlineCode(s)).join(", ") : "none"}`;
  return (
    `diffward's scanning-service token does not have the ${inlineCode(AREAS_WRITE_SCOPE)} scope ` +
    `(${seen}), which the service needs to ${what}, ` +
    `so nothing was changed. Ask an administrator to add that scope to the token, or ${what} in the scanning service itself.`
  );
}

/** What an areas write does: call the service, or only answer. */
export type AreasWritePlan =
  | { kind: "add"; repositoryId: string; name: string; description: string }
  | { kind: "remove"; repositoryId: string; key: string }
  | { kind: "answer"; answer: string };

/** Plans `areas add` (pure): refused without `guidance:write`. */
export function planAreasAdd(input: VerbInput<AreasAddCommand>): AreasWritePlan {
  const scopes = tenantOf(input).token.scopes;
  if (!scopes.includes(AREAS_WRITE_SCOPE))
    return { kind: "answer", answer: missingScopeAnswer("add an audit area", scopes) };
  const { name, description } = input.cmd;
  return { kind: "add", repositoryId: configOf(input).repositoryId, name, description };
}

/** Plans `areas remove` (pure): refused without `guidance:write`. */
export function planAreasRemove(input: VerbInput<AreasRemoveCommand>): AreasWritePlan {
  const scopes = tenantOf(input).token.scopes;
  if (!scopes.includes(AREAS_WRITE_SCOPE))
    return { kind: "answer", answer: missingScopeAnswer("remove an audit area", scopes) };
  return { kind: "remove", repositoryId: configOf(input).repositoryId, key: input.cmd.key };
}

/** The answer to a service refusal of an areas write, or `undefined` for errors the job sorts. */
export function areasRefusal(error: unknown, plan: AreasWritePlan): string | undefined {
  if (!(error instanceof ScannerApiError) || plan.kind === "answer") return undefined;
  const key = plan.kind === "remove" ? inlineCode(plan.key) : "";
  const repo = inlineCode(plan.repositoryId);
  if (error.status === 403)
    return missingScopeAnswer(plan.kind === "add" ? "add an audit area" : "remove an audit area", "refused");
  if (plan.kind === "remove" && error.status === 409)
    return (
      `Audit area ${key} was **discovered** by the scanning service's map of repository ${repo}, not added by ` +
      `someone, and only custom areas can be removed (the service answered 409), so nothing was changed. To ` +
      `keep it out of this repository's scans, list the areas to scan under \`auditAreas\` in ` +
      "`.github/diffward.yml` without it."
    );
  if (plan.kind === "remove" && error.status === 404)
    return `Repository ${repo} has no audit area ${key} (or diffward's token cannot see it), so nothing was removed. \`/diffward areas\` lists the keys.`;
  return undefined;
}

async function applyAreasWrite(
  io: CommandIO,
  plan: AreasWritePlan,
  input: VerbInput<AreasAddCommand | AreasRemoveCommand>,
): Promise<CommandOutcome> {
  if (plan.kind === "answer") return answerOnly(io, plan);
  const tenant = tenantOf(input);
  try {
    if (plan.kind === "add") {
      const created = await io.once("areas-add", async () => {
        const area = await tenant.client.createAuditArea(tenant.projectId, plan.repositoryId, {
          name: plan.name,
          description: plan.description,
        });
        return { key: area.key };
      });
      io.log.info({ repositoryId: plan.repositoryId, key: created.key }, "audit area added");
      await io.answer(
        `Added the custom audit area ${inlineCode(created.key)} (“${neutralize(plan.name)}”) to repository ` +
          `${inlineCode(plan.repositoryId)}. Scans cover it once it is listed under \`auditAreas\` in ` +
          "`.github/diffward.yml` (or scan the whole repository as before); `/diffward areas` lists every area.",
      );
    } else {
      await io.once("areas-remove", async () => {
        await tenant.client.deleteAuditArea(tenant.projectId, plan.repositoryId, plan.key);
      });
      io.log.info({ repositoryId: plan.repositoryId, key: plan.key }, "audit area removed");
      await io.answer(
        `Removed the custom audit area ${inlineCode(plan.key)} from repository ${inlineCode(plan.repositoryId)}. ` +
          "Scans that already ran keep the scope they ran with; if `.github/diffward.yml` lists it under " +
          "`auditAreas`, take it out there too.",
      );
    }
    return "changed";
  } catch (error) {
    const answer = areasRefusal(error, plan);
    if (answer === undefined) throw error;
    io.log.info({ status: (error as ScannerApiError).status, kind: plan.kind }, "audit area write refused");
    await io.answer(answer);
    return "answered";
  }
}

/** `/diffward areas add <name>: <description>`. */
export const areasAddVerb = defineVerb(AreasAddCommand, VERB_NEEDS.repository, {
  parse: parseAreasAdd,
  describe: () => "add the audit area",
  plan: planAreasAdd,
  apply: applyAreasWrite,
});

/** `/diffward areas remove <key>`. */
export const areasRemoveVerb = defineVerb(AreasRemoveCommand, VERB_NEEDS.repository, {
  parse: parseAreasRemove,
  describe: () => "remove the audit area",
  plan: planAreasRemove,
  apply: applyAreasWrite,
});
