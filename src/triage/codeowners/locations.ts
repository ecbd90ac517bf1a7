/**
 * Where GitHub looks for a CODEOWNERS file, in its order (the first found is used), and the size over which it
 * ignores one (GitHub "About code owners": "CODEOWNERS file location", "CODEOWNERS file size",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners).
 */
export const CODEOWNERS_LOCATIONS = [".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"] as const;

/** GitHub's limit: "CODEOWNERS files must be under 3 MB in size", in bytes. */
export const CODEOWNERS_MAX_BYTES = 3 * 1024 * 1024;
