/** The organization's page: its data for one installation and viewer (`./data.ts`). */
export {
  loadInstallationPage,
  createOrgPageDeps,
  type OrgPageDeps,
  type PageAccess,
  type InstallationPage,
} from "./data.js";
export { TtlCache } from "./cache.js";
