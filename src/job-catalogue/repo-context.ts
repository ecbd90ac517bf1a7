import { z } from "zod";

/** The repository and installation a job acts in. */
export const RepoContext = z.object({
  installationId: z.number().int(),
  /** the installation's account login (organization or user): picks the scanner token */
  accountLogin: z.string(),
  owner: z.string(),
  repo: z.string(),
  repoPrivate: z.boolean(),
  defaultBranch: z.string(),
  /** `repository.html_url`, for links to files at a commit */
  repoHtmlUrl: z.string().optional(),
});
export type RepoContext = z.infer<typeof RepoContext>;

/**
 * The fields a comment's or an alert's event job starts with, checked more strictly than {@link RepoContext}
 * (the handler filled them from the webhook payload): the webhook delivery and the repository it came from
 * (without `repoHtmlUrl`).
 */
export const deliveryInRepository = {
  deliveryId: z.string().min(1),
  installationId: z.number().int().positive(),
  /** the installation's account login: picks the scanner token */
  accountLogin: z.string(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  repoPrivate: z.boolean(),
  defaultBranch: z.string().min(1),
};
