// Launch a diff scan on the sandbox (`npm run sandbox`), follow it honouring Retry-After, print its findings.
import { ScannerClient, isTerminalScanStatus } from "../src/scanner/index.js";

const client = new ScannerClient({
  baseUrl: process.env.SCANNER_API_URL ?? "http://127.0.0.1:4010/api/v1",
  token: process.env.SCANNER_TOKEN ?? "sandbox-token",
});
const { project } = await client.getToken();
const { scanId, creditBudget } = await client.launchScan(project.id, {
  repositoryId: "repo_demo",
  presetRef: "diff-standard",
  commitHash: "2a2b2c2d2e2f30313233343536373839aabbccdd",
  baseCommit: "main",
});
console.log(`scan ${scanId} launched, ${creditBudget} credits reserved`);

for (;;) {
  const { scan, retryAfterSeconds } = await client.getScan(project.id, scanId);
  console.log(`${scan.status} ${scan.progress?.percent ?? 0}%`);
  if (isTerminalScanStatus(scan.status)) break;
  await new Promise((r) => setTimeout(r, (retryAfterSeconds ?? 1) * 1000)); // never sooner than asked
}
for await (const f of client.iterateFindings(project.id, { scanId })) {
  console.log(`${f.severity.padEnd(8)} ${f.location}  ${f.title}`);
}
