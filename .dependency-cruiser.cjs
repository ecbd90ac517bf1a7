/**
 * The import rules of diffward's layers (docs/architecture.md). `npm run lint:deps` checks them, CI runs it
 * (`.ci/run`), and test/architecture/imports.test.ts fails with the violation list when one is broken.
 * Type-only imports count: a cycle through a type is still a cycle of meaning.
 *
 * Layers, top to bottom (an arrow is "may import"):
 *   entry (index, boot, web) → handlers → queue (runtime, state, workers, jobs/) → triage, report,
 *   commands, policy, tenants → render, domain → scanner (service client), github (Octokit), config
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles in src/ (issue 9): data flows one way.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "product-not-tooling",
      severity: "error",
      comment:
        "src/ is the product: it never imports the sandbox, the GitHub stand-in, the demo harness (dev/), tests, scripts or benchmarks.",
      from: { path: "^src/" },
      to: { path: "^(dev|test|scripts|bench|examples)/" },
    },
    {
      name: "scanner-knows-no-github",
      severity: "error",
      comment:
        "scanner/ is the service's client: it knows nothing of GitHub, nor of diffward's layers above it.",
      from: { path: "^src/scanner/" },
      to: { path: "^src/", pathNot: "^src/scanner/" },
    },
    {
      name: "github-knows-no-service",
      severity: "error",
      comment:
        "github/ is Octokit calls: it knows nothing of the service or of diffward's layers (only config's permission ladder).",
      from: { path: "^src/github/" },
      to: { path: "^src/", pathNot: "^src/(github|config)/" },
    },
    {
      name: "config-is-a-leaf",
      severity: "error",
      comment: "config/ (env and repository schema) imports nothing else of src/.",
      from: { path: "^src/config/" },
      to: { path: "^src/", pathNot: "^src/config/" },
    },
    {
      name: "pure-layers-not-runtime",
      severity: "error",
      comment:
        "domain/, render/, commands/ and policy/ decide; they never reach the queue, the handlers or ops (jobs and entry points wire them).",
      from: { path: "^src/(domain|render|commands|policy)/" },
      to: { path: "^src/(queue|handlers|ops)/|^src/(index|boot|web)\\.ts$" },
    },
    {
      name: "domain-is-pure",
      severity: "error",
      comment:
        "domain/ is pure rules: it imports only the service's vocabulary (catalog, labels) and config types.",
      from: { path: "^src/domain/" },
      to: { path: "^src/", pathNot: "^src/(domain/|config/|scanner/(catalog|labels)\\.ts$)" },
    },
    {
      name: "render-is-pure",
      severity: "error",
      comment:
        "render/ builds Markdown: no GitHub calls, no service client, no tenants, no triage/report/commands above it.",
      from: { path: "^src/render/" },
      to: { path: "^src/(tenants|triage|report|commands)/|^src/scanner/client\\.ts$" },
    },
    {
      name: "render-calls-no-github",
      severity: "error",
      comment: "render/ may name GitHub's shapes (check run actions, annotations) but never calls Octokit.",
      from: { path: "^src/render/" },
      to: { path: "^src/github/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "commands-reach-world-through-ports",
      severity: "error",
      comment:
        "commands/ (parser, verb table, verb modules) reach GitHub and diffward's state only through the CommandIO ports the command job builds.",
      from: { path: "^src/commands/" },
      to: { path: "^src/github/|^src/triage/(?!types\\.ts$)" },
    },
    {
      name: "policy-decides-not-writes",
      severity: "error",
      comment:
        "policy/ (gates, preflight, credits, token health) decides; it does not write to GitHub or know jobs, triage or reports.",
      from: { path: "^src/policy/" },
      to: { path: "^src/(github|triage|report|commands)/" },
    },
    {
      name: "handlers-are-thin",
      severity: "error",
      comment:
        "handlers/ check guards and enqueue: they never call GitHub (writes happen in jobs), the service, triage or reports.",
      from: { path: "^src/handlers/" },
      to: { path: "^src/(github|scanner|tenants|triage|report|policy|ops)/" },
    },
    {
      name: "jobs-only-from-the-queue",
      severity: "error",
      comment:
        "queue/jobs/ are run by queue/workers.ts (and reconciled by ops/); layers below never import a job (they share types from report/, triage/ and queue/jobs/types.ts).",
      from: { path: "^src/", pathNot: "^src/(queue|ops|handlers)/" },
      to: { path: "^src/queue/jobs/(?!types\\.ts$|command-data\\.ts$)" },
    },
    {
      name: "below-the-queue-no-job-types",
      severity: "error",
      comment: "triage/, report/, commands/, policy/, tenants/ do not know job data shapes.",
      from: { path: "^src/(triage|report|commands|policy|tenants|render|domain)/" },
      to: { path: "^src/queue/jobs/" },
    },
    {
      name: "entry-files-are-entries",
      severity: "error",
      comment: "Only the entry imports boot.ts and web.ts; nothing imports index.ts.",
      from: { path: "^src/", pathNot: "^src/index\\.ts$" },
      to: { path: "^src/(index|boot|web)\\.ts$" },
    },
    {
      name: "features-not-entry-or-handlers",
      severity: "error",
      comment: "Feature folders (code scanning, triage, report) are run by jobs; they never import handlers.",
      from: { path: "^src/(codescanning|triage|report)/" },
      to: { path: "^src/handlers/" },
    },
    {
      name: "tenants-know-only-the-service",
      severity: "error",
      comment: "tenants/ (service tokens per account) knows the service's client, nothing of GitHub or jobs.",
      from: { path: "^src/tenants/" },
      to: { path: "^src/", pathNot: "^src/(tenants|scanner)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
