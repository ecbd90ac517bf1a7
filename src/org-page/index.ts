/** The organization's page: its data for one installation and viewer (`./data.ts`). */
export {
  loadInstallationPage,
  createOrgPageDeps,
  githubWebUrl,
  type OrgPageDeps,
  type PageAccess,
  type InstallationPage,
} from "./data.js";
export { TtlCache, within } from "./cache.js";
