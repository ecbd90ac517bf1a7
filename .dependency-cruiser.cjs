/**
 * The import rules of diffward's layers (docs/architecture.md). `npm run lint:deps` checks them over src/ and
 * dev/, CI runs it (`.ci/run`), and test/architecture/imports.test.ts fails with the violation list when one
 * is broken.
 * Type-only imports count: a cycle through a type is still a cycle of meaning.
 *
 * Layers, top to bottom: a folder imports only folders on a lower layer, never one beside it or above it
 * (`layered-<folder>` rules, built from LAYERS). The rules after them say more than the order allows.
 */

/**
 * A layer whose folders may import one another, not only the layers below: the job processors and the report
 * stage, whose job is one of them (the poll job hands a terminal scan to the report job; the report job uses
 * the machinery every job shares and enqueues the settlement). no-circular still forbids a cycle of files.
 */
const band = (...folders) => Object.assign(folders, { band: true });

/**
 * The folders of src/, top to bottom. Entry files (index, boot, web) sit above all and only wire; jobs are
 * every BullMQ processor, and report is the report stage (its job, reads and writes) beside them; its pure
 * decisions (report/decide) sit lower, where triage and the commands that re-render a report reach them;
 * stores are diffward's Redis records, one module each, read through zod (pull
 * request state and locks, baselines, cap ledger, service breaker, audit log, the page's records, webhook
 * deliveries), below every feature and above the runtime's connection; runtime is the process's machinery
 * (Redis connection, key and queue names, write lane, fairness, config loading, logger, metrics, Octokit
 * factory, health, the runtime object), which the layers above share and which knows no job. checks is how a scan's check run ends or shows progress outside its
 * report, planned the same for every job that follows a scan. job-catalogue is the one table of jobs (each
 * kind's name, queue, data schema and options) and the one way to add a job: above domain (its data names the
 * domain's shapes), below every layer that adds a job (triage adds an acceptance's expiry). web is the
 * organization's page's routes and sign-in, wired by the web entry: the top layer, like handlers for webhooks.
 * org-page is the page's data, read by web only: it reads every layer's state below it.
 */
const LAYERS = [
  ["web"],
  ["org-page"],
  ["handlers"],
  band("jobs", "scan", "recovery", "report", "merge-queue"),
  ["commands", "code-scanning"],
  ["triage"],
  ["report/decide"],
  ["policy", "checks"],
  ["stores"],
  ["render"],
  ["job-catalogue"],
  ["domain"],
  ["runtime"],
  ["tenants", "github"],
  ["scanner", "config"],
];

const ENTRY = "^src/(index|boot|web|admin|cli)\\.ts$";

/**
 * The runtime object (`runtime/runtime.ts`, the `Runtime` type every job is handed) carries the stores built
 * for the process: it alone of runtime/ names stores/, and only their types (the layered rule for runtime/
 * skips it; `runtime-object-names-stores-only` says what it may import).
 */
const RUNTIME_OBJECT = "^src/runtime/runtime\\.ts$";

/** The folders of LAYERS inside `folder` (report/decide inside report): their own layer governs them. */
const nestedIn = (folder) => LAYERS.flat().filter((f) => f.startsWith(`${folder}/`));

/**
 * One rule per folder: it may not import the entry files, a folder above it, or a folder on its own layer
 * (unless the layer is a band); a folder inside one of those that sits lower (report/decide) stays allowed.
 */
const layered = LAYERS.flatMap((layer, i) =>
  layer.map((folder) => {
    const beside = layer.band ? [] : layer.filter((f) => f !== folder);
    const notBelow = [...LAYERS.slice(0, i).flat(), ...beside];
    const lowerInside = notBelow.flatMap(nestedIn).filter((f) => !notBelow.includes(f));
    const above = notBelow.length ? `^src/(${notBelow.join("|")})/|${ENTRY}` : ENTRY;
    const skipped = [
      ...nestedIn(folder).map((f) => `^src/${f}/`),
      ...(folder === "runtime" ? [RUNTIME_OBJECT] : []),
    ];
    return {
      name: `layered-${folder.replace("/", "-")}`,
      severity: "error",
      comment: `${folder}/ imports only the layers below it (docs/architecture.md): not the entry files${notBelow.map((f) => `, ${f}/`).join("")}${lowerInside.map((f) => ` (${f}/ is below)`).join("")}.`,
      from: { path: `^src/${folder}/`, ...(skipped.length ? { pathNot: skipped.join("|") } : {}) },
      to: { path: above, ...(lowerInside.length ? { pathNot: `^src/(${lowerInside.join("|")})/` } : {}) },
    };
  }),
);

/** The folders above runtime/ but stores/: what the runtime object may never import. */
const aboveStores = LAYERS.slice(
  0,
  LAYERS.findIndex((l) => l.includes("stores")),
).flat();

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layered,
    {
      name: "runtime-object-names-stores-only",
      severity: "error",
      comment:
        "runtime/runtime.ts (the Runtime type) names the stores it carries, type-only, and nothing else above runtime/.",
      from: { path: RUNTIME_OBJECT },
      to: { path: `^src/(${aboveStores.join("|")})/|${ENTRY}` },
    },
    {
      name: "runtime-object-builds-no-store",
      severity: "error",
      comment:
        "runtime/runtime.ts names the stores' types only: the entry (boot.ts) builds them (createStores).",
      from: { path: RUNTIME_OBJECT },
      to: { path: "^src/stores/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-circular",
      severity: "error",
      comment:
        "No import cycles in src/ or dev/ (the sandbox, the GitHub stand-in, the harness): data flows one way.",
      from: { path: "^(src|dev)/" },
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
        "domain/, render/, checks/ and commands/ decide; they never reach the runtime or the stores (Redis, queues, metrics): jobs hand them what they read.",
      from: { path: "^src/(domain|render|checks|commands)/" },
      to: { path: "^src/(runtime|stores)/" },
    },
    {
      name: "policy-names-runtime-shapes-only",
      severity: "error",
      comment:
        "policy/ may name a runtime or store shape (the cap ledger's seed entry) but never calls them: jobs read and write its state.",
      from: { path: "^src/policy/" },
      to: { path: "^src/(runtime|stores)/", dependencyTypesNot: ["type-only"] },
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
        "render/ builds Markdown: no service client (its class, transport, endpoint modules, paging) and no tenants (it is handed what they read).",
      from: { path: "^src/render/" },
      to: { path: "^src/tenants/|^src/scanner/(client|transport|paginate|[a-z]+-endpoints)\\.ts$" },
    },
    {
      name: "render-calls-no-github",
      severity: "error",
      comment: "render/ may name GitHub's shapes (check run actions, annotations) but never calls Octokit.",
      from: { path: "^src/render/" },
      to: { path: "^src/github/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "checks-plan-not-send",
      severity: "error",
      comment:
        "checks/ plans a check run's ending or progress as data (github/writes.ts's planned writes); it never calls Octokit, the service or the tenants (GitHub's shapes may be named, type-only).",
      from: { path: "^src/checks/" },
      to: {
        path: "^src/(github/(?!writes\\.ts$)|scanner/client\\.ts$|tenants/)",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "report-decide-is-pure",
      severity: "error",
      comment:
        "report/decide/ decides a report from what the report job read, without I/O: it never calls the runtime (Redis, queues, the write lane), the stores, the tenants, the service's client, the policy's ledger reads, the job catalogue's addJob or Octokit; it may name their shapes (type-only), and plan GitHub writes (github/writes.ts; isOwnComment of github/app-identity.ts is a pure comparison). The job reads before it and writes after it.",
      from: { path: "^src/report/decide/" },
      to: {
        path: "^src/(runtime|stores|tenants|policy)/|^src/scanner/(client|index)\\.ts$|^src/job-catalogue/(add-job|index)\\.ts$|^src/github/(?!(writes|app-identity)\\.ts$)",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "report-decide-no-io-modules",
      severity: "error",
      comment:
        "report/decide/ imports no package and no Node module that reaches the world (node:crypto's hashes aside): BullMQ, ioredis, Octokit, the file system and the network stay in the report job.",
      from: { path: "^src/report/decide/" },
      to: {
        dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown", "core"],
        dependencyTypesNot: ["type-only"],
        pathNot: "^(node:)?crypto$",
      },
    },
    {
      name: "commands-reach-world-through-ports",
      severity: "error",
      comment:
        "commands/ (parser, verb table, verb modules) reach GitHub and diffward's state only through the CommandIO ports the command job builds: GitHub's shapes may be named (type-only), never called.",
      from: { path: "^src/commands/" },
      to: { path: "^src/github/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "commands-reach-state-through-ports",
      severity: "error",
      comment:
        "commands/ reach diffward's triage state only through the CommandIO ports; triage/types.ts names its shapes.",
      from: { path: "^src/commands/" },
      to: { path: "^src/triage/(?!types\\.ts$)" },
    },
    {
      name: "policy-decides-not-writes",
      severity: "error",
      comment:
        "policy/ (gates, preflight, credits, token health) decides; it does not call GitHub (jobs write what it decides).",
      from: { path: "^src/policy/" },
      to: { path: "^src/github/" },
    },
    {
      name: "handlers-are-thin",
      severity: "error",
      comment:
        "handlers/ check guards and enqueue: they never call GitHub (writes happen in jobs), the service, triage or reports.",
      from: { path: "^src/handlers/" },
      to: { path: "^src/(github|scanner|tenants|triage|report|policy)/" },
    },
    {
      name: "entry-files-are-entries",
      severity: "error",
      comment:
        "Only the entry imports boot.ts and web.ts; nothing imports index.ts but the command line (cli.ts), which starts the app when given no subcommand.",
      from: { path: "^src/", pathNot: "^src/(index|cli)\\.ts$" },
      to: { path: "^src/(index|boot|web)\\.ts$" },
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
    // the packages that reach Redis, GitHub or the logs stay visible (as leaves) so that rules can name them
    exclude: { path: "node_modules/(?!(bullmq|ioredis|probot|@octokit|pino)/)" },
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
