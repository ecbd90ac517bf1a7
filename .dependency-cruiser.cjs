/**
 * The import rules of diffward's layers (docs/architecture.md). `npm run lint:deps` checks them over src/ and
 * dev/, CI runs it (`.ci/run`), and test/architecture/imports.test.ts fails with the violation list when one
 * is broken.
 * Type-only imports count: a cycle through a type is still a cycle of meaning.
 *
 * Three bands, top to bottom: entry → features → kernel (BANDS, the band rules); inside each band a finer order
 * of layers (`layered-<folder>` rules, built from LAYERS). The rules after them say more than the order allows.
 */
/**
 * A layer whose folders may import one another, not only the layers below: the rooms of the scans and the
 * report stage (the poll job hands a terminal scan to the report job; the report job enqueues the settlement;
 * the baseline's job launches through the scan's). no-circular still forbids a cycle of files.
 */
const band = (...folders) => Object.assign(folders, { band: true });

/**
 * The three bands of src/, top to bottom (docs/architecture.md, STYLE.md "The shape of the code"): imports run
 * downward, entry → features → kernel.
 * - entry connects things: the entry files (ENTRY_FILES), the web process's routes (web/), the webhook handlers
 *   (handlers/: guards, enqueue), and the workers that run the job catalogue (workers/: workers.ts, processors.ts).
 * - features are rooms, one per feature (a job or job family with its pure decisions, its rendering, its reads
 *   and writes); a room that has an index.ts is reached from another room only through it
 *   (`room-through-index`).
 * - the kernel is what two features share: the machinery every job shares (job-kit), pure rules (domain, render,
 *   checks), the policy's gates, the one table of jobs, diffward's Redis records (stores), the outside systems (github, scanner, tenants), config and the
 *   process's machinery (runtime). It imports no feature and no entry (`kernel-knows-no-feature`).
 * Inside each band the folders keep a finer order (LAYERS, the `layered-<folder>` rules): a folder imports only
 * folders on a lower layer, never one beside it unless its layer is a band of rooms that use each other.
 */
const BANDS = {
  entry: [["web", "handlers", "workers"]],
  features: [
    ["org-page"],
    band("scan", "recovery", "report", "merge-queue", "baseline"),
    ["commands", "triage/job"],
    ["code-scanning"],
    ["triage"],
    ["report/decide"],
  ],
  kernel: [
    ["job-kit"],
    ["policy", "checks"],
    ["stores"],
    ["render"],
    ["job-catalogue"],
    ["domain"],
    ["runtime"],
    ["tenants", "github"],
    ["scanner", "config"],
  ],
};

/** Every layer of every band, top to bottom. */
const LAYERS = [...BANDS.entry, ...BANDS.features, ...BANDS.kernel];

/** The top-level folders of a band (report/decide belongs to report/). */
const foldersOf = (band) => [...new Set(BANDS[band].flat().map((f) => f.split("/")[0]))];

/** The entry files; with web/, handlers/ and workers/ they are the entry band. */
const ENTRY_FILES = "^src/(index|boot|web|admin|cli|tracing)\\.ts$";
const ENTRY = "^src/(index|boot|web|admin|cli)\\.ts$";
const ENTRY_BAND = `${ENTRY_FILES}|^src/(${foldersOf("entry").join("|")})/`;

/**
 * The feature rooms that have an index.ts: other rooms reach them only through it (test/architecture/imports.test.ts
 * checks that the list names every feature folder with an index.ts).
 */
const ROOMS_WITH_INDEX = [
  "org-page",
  "merge-queue",
  "commands",
  "code-scanning",
  "baseline",
  "scan",
  "triage",
];

/**
 * The runtime object (`runtime/runtime.ts`, the `Runtime` type every job is handed) carries the stores built
 * for the process: it alone of runtime/ names stores/, and only their types (the layered rule for runtime/
 * skips it; `runtime-object-names-stores-only` says what it may import).
 */
const RUNTIME_OBJECT = "^src/runtime/runtime\\.ts$";

/**
 * The command job (`commands/job/`: the job and the CommandIO ports it builds) is the one part of commands/ that
 * reaches the world; the rules that keep the parser, the verb table and the verb modules pure skip it.
 */
const COMMAND_JOB = "^src/commands/job/";

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

/** The band rules: entry → features → kernel, and rooms through their index.ts. */
const bandRules = [
  {
    name: "kernel-knows-no-feature",
    severity: "error",
    comment: `The kernel (${foldersOf("kernel").join(", ")}) imports no feature room and no entry: what two features share lives in the kernel.`,
    from: { path: `^src/(${foldersOf("kernel").join("|")})/` },
    to: { path: `^src/(${foldersOf("features").join("|")})/|${ENTRY_BAND}` },
  },
  {
    name: "features-know-no-entry",
    severity: "error",
    comment:
      "A feature room never imports the entry (entry files, web/, handlers/, the workers): the entry connects the rooms.",
    from: { path: `^src/(${foldersOf("features").join("|")})/`, pathNot: ENTRY_BAND },
    to: { path: ENTRY_BAND },
  },
  ...ROOMS_WITH_INDEX.map((room) => ({
    name: `room-through-index-${room}`,
    severity: "error",
    comment: `${room}/ is a room: another room reaches it only through ${room}/index.ts.`,
    from: {
      path: `^src/(${foldersOf("features")
        .filter((f) => f !== room)
        .join("|")})/`,
    },
    to: { path: `^src/${room}/(?!index\\.ts$)` },
  })),
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...bandRules,
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
        "domain/, render/, checks/ and commands/ decide; they never reach the runtime (Redis, queues, metrics): jobs hand them what they read.",
      from: { path: "^src/(domain|render|checks|commands)/", pathNot: COMMAND_JOB },
      to: { path: "^src/runtime/" },
    },
    {
      name: "pure-layers-not-stores",
      severity: "error",
      comment:
        "domain/, render/ and checks/ never reach the stores; commands/ name the stored report's shape (their ports hand it over), type-only.",
      from: { path: "^src/(domain|render|checks)/" },
      to: { path: "^src/stores/" },
    },
    {
      name: "commands-name-store-shapes-only",
      severity: "error",
      comment:
        "commands/ reach diffward's state only through the CommandIO ports: they may name a store's shape (the stored report), never call a store.",
      from: { path: "^src/commands/", pathNot: COMMAND_JOB },
      to: { path: "^src/stores/", dependencyTypesNot: ["type-only"] },
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
      from: { path: "^src/commands/", pathNot: COMMAND_JOB },
      to: { path: "^src/github/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "commands-reach-state-through-ports",
      severity: "error",
      comment:
        "commands/ reach diffward's triage state only through the CommandIO ports; the decisions' shapes are domain/decision.ts.",
      from: { path: "^src/commands/", pathNot: COMMAND_JOB },
      to: { path: "^src/triage/" },
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
