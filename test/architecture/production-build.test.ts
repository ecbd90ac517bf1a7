/**
 * Development tooling stays out of the product: compiling with
 * `tsconfig.build.json` (what `npm run build` and the Docker image run) emits the product's modules only,
 * none of the sandbox, the GitHub stand-in or the demo harness (`dev/`), and the Docker build stage copies
 * only `src` (plus the manifests and tsconfigs) into the image it compiles.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const outDir = mkdtempSync(join(tmpdir(), "diffward-build-"));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Compiles the production build into `outDir`; returns the program's source files and the emitted files. */
function build(): { sources: string[]; emitted: string[] } {
  const configPath = join(ROOT, "tsconfig.build.json");
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, { outDir, noEmit: false });
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const result = program.emit();
  const errors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length)
    throw new Error(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => "\n",
      }),
    );
  return {
    sources: program
      .getSourceFiles()
      .map((f) => relative(ROOT, f.fileName))
      .filter((f) => !f.includes("node_modules")),
    emitted: filesUnder(outDir).map((f) => relative(outDir, f)),
  };
}

describe("the production build", () => {
  const { sources, emitted } = build();

  it("compiles the product's entry and no module of dev/, test/, scripts/ or bench/", () => {
    expect(emitted).toContain(join("src", "index.js"));
    expect(emitted).toContain(join("src", "commands", "job", "command-job.js"));
    const outside = emitted.filter((f) => !f.startsWith(`src${"/"}`));
    expect(outside).toEqual([]);
    for (const tooling of ["dev/sandbox", "dev/github-standin", "dev/harness"])
      expect(emitted.filter((f) => f.startsWith(tooling))).toEqual([]);
  });

  it("no product module reaches development tooling through an import", () => {
    expect(sources.length).toBeGreaterThan(50);
    expect(sources.filter((f) => !f.startsWith("src/"))).toEqual([]);
    const reaching = emitted
      .filter((f) => f.endsWith(".js"))
      .filter((f) =>
        /from\s+["'](\.\.\/)+(dev|test|scripts|bench)\//.test(readFileSync(join(outDir, f), "utf8")),
      );
    expect(reaching).toEqual([]);
  });

  it("package.json's dependencies are exactly the packages the built modules import", () => {
    // What the image installs (`npm ci --omit=dev`) is what dist/ loads: a package only dev/, test/ or
    // scripts use is a devDependency, and a type-only import (erased by the build) needs none.
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const imported = new Set(
      emitted
        .filter((f) => f.endsWith(".js"))
        .flatMap((f) => ts.preProcessFile(readFileSync(join(outDir, f), "utf8"), true, true).importedFiles)
        .map((i) => i.fileName)
        .filter((name) => !name.startsWith(".") && !name.startsWith("node:"))
        .map((name) =>
          name
            .split("/")
            .slice(0, name.startsWith("@") ? 2 : 1)
            .join("/"),
        ),
    );
    expect([...imported].sort()).toEqual(Object.keys(manifest.dependencies).sort());
  });
});

describe("the Docker image", () => {
  const lines = readFileSync(join(ROOT, "Dockerfile"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stageStart = lines.findIndex((l) => /^FROM\s+\S+\s+AS\s+build$/i.test(l));
  const stageEnd = lines.findIndex((l, i) => i > stageStart && /^FROM\s/i.test(l));
  const buildStage = lines.slice(stageStart, stageEnd);

  it("the build stage copies only the manifests, the tsconfigs and src, then runs the build", () => {
    expect(stageStart).toBeGreaterThanOrEqual(0);
    const copied = buildStage
      .filter((l) => /^COPY\s/i.test(l))
      .flatMap((l) =>
        l
          .replace(/^COPY\s+/i, "")
          .split(/\s+/)
          .slice(0, -1),
      );
    expect(copied.sort()).toEqual(
      ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "src"].sort(),
    );
    expect(buildStage).toContain("RUN npm run build");
  });

  it("the runtime stage takes only dist/ from the build stage and app.yml, and is the image's default (last) stage", () => {
    // The `sandbox` stage (docker-compose's local trial) may copy dev/; the production image is the
    // `runtime` stage, which `docker build` picks by default because it is the last one.
    const runtimeStart = lines.findIndex((l) => /^FROM\s+\S+\s+AS\s+runtime$/i.test(l));
    expect(runtimeStart).toBeGreaterThan(stageStart);
    expect(lines.slice(runtimeStart + 1).some((l) => /^FROM\s/i.test(l))).toBe(false);
    const runtime = lines.slice(runtimeStart);
    const copies = runtime.filter((l) => /^COPY\s/i.test(l));
    expect(copies).toEqual([
      "COPY package.json package-lock.json ./",
      "COPY --from=build /app/dist ./dist",
      "COPY app.yml ./",
    ]);
  });
});
