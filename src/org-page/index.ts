/**
 * The organization's page: its data for one installation and viewer (`./page-data.ts`, shapes in
 * `./page-model.ts`) and its HTML (`./render-page.ts`). The web entry wires the routes.
 */
export {
  loadInstallationPage,
  createOrgPageDeps,
  githubWebUrl,
  type OrgPageDeps,
  type PageAccess,
  type InstallationPage,
} from "./page-data.js";
export { renderInstallationList, renderInstallationPage } from "./render-page.js";
