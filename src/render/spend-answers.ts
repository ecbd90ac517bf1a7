import type { RepoConfig } from "../config/repo-config.js";
import { inlineCode, neutralize } from "./escape.js";
import { table } from "./markdown.js";
import type { AuditAreaList, Balance, Summary } from "../scanner/schemas.js";
import { monthWindow } from "../domain/month.js";

/**
 * `/diffward credits`: the organization's balance, available and reserved credits, this project's net
 * spend and purchases for the last months, newest first (spec §Billing, `GET …/billing/balance` and
 * `GET …/billing/summary`), and
 * this repository's spend this month against `creditCap.monthly` when one is set.
 */
export function renderCreditsAnswer(input: {
  balance: Balance;
  summary?: Summary;
  repositoryMonthSpend?: number;
  config?: Pick<RepoConfig, "creditCap" | "lowBalanceThreshold" | "repositoryId">;
  now: number;
}): string {
  const { balance, config } = input;
  const lines = [
    `**Credits** of ${inlineCode(balance.organization.name)}: **${balance.availableCredits} available** (balance ${balance.balanceCredits}, ${balance.reservedCredits} reserved by queued and running scans).`,
  ];
  if (config?.lowBalanceThreshold !== undefined && balance.availableCredits < config.lowBalanceThreshold) {
    lines.push(
      `⚠️ Below this repository's \`lowBalanceThreshold\` of ${config.lowBalanceThreshold}: ask an admin to top up.`,
    );
  }
  if (input.repositoryMonthSpend !== undefined && config) {
    const cap = config.creditCap.monthly;
    const resets = new Date(monthWindow(input.now).next).toISOString().slice(0, 10);
    lines.push(
      `This repository (${inlineCode(config.repositoryId)}) spent **${input.repositoryMonthSpend} credits** this month (UTC)` +
        (cap !== undefined ? ` of its \`creditCap.monthly\` of ${cap}; the cap resets on ${resets}.` : "."),
    );
  }
  const months = input.summary?.months ?? [];
  if (months.length > 0) {
    lines.push(
      "This project's spend by month (net of refunds):",
      table(
        ["Month", "Spent", "Purchased"],
        months
          .slice(0, 6)
          .map((m) => [neutralize(m.month), String(m.spentCredits), String(m.purchasedCredits)]),
      ),
    );
  }
  return lines.join("\n\n");
}

/**
 * `/diffward areas`: the repository's audit areas with whatever size fields the list carries (their names are
 * not in spec §Audit area: see `src/scanner/envelopes.ts`), the branch they were read from, and which keys
 * `.github/diffward.yml` uses; areas the current map no longer names are marked (a launch naming them is
 * refused, spec §Scans, launch rule 2).
 */
export function renderAreasAnswer(list: AuditAreaList, configured: readonly string[] = []): string {
  if (list.areas.length === 0) return "**Audit areas**: none yet for this repository.";
  const header = `**Audit areas** of this repository (${list.areas.length})${list.branch ? `, sizes from ${inlineCode(list.branch)}` : ""}${list.hasMap === false ? " (that branch has no stored map yet)" : ""}:`;
  const rows = list.areas.map((a) => [
    inlineCode(a.key) + (configured.includes(a.key) ? " ✅" : ""),
    neutralize(a.name ?? ""),
    a.source,
    a.inCurrentMap === false ? "⚠️ no longer in the map" : "yes",
    a.files == null ? "—" : String(a.files),
    a.lines == null ? "—" : String(a.lines),
  ]);
  return [
    header,
    table(["Key", "Name", "Source", "In current map", "Files", "Lines"], rows),
    configured.length ? "✅ = scoped by `auditAreas` in `.github/diffward.yml`." : "",
  ]
    .filter(Boolean)
    .join("\n\n");
}
