/**
 * diffward's finding comments on a pull request, read back from their hidden markers (STYLE.md "Sticky
 * comments"): the one reading shared by the report (which comments to refresh, which ids to keep), the
 * not-reported sync (which threads to close or reopen) and the command job (which finding a reply is about).
 */
import { isOwnComment } from "../../github/app-identity.js";
import type { ExistingReviewComment } from "../../github/reviews.js";
import { parseFindingMarker } from "../../render/inline-comment.js";

/** A diffward finding comment already on the pull request: the root of the finding's review thread. */
export interface PostedFindingComment {
  commentId: number;
  findingId: string;
  fingerprint: string;
  /** the marker's shape key (version 2 markers only, src/render/inline-comment.ts) */
  shape?: string;
  /** the marker's version: 1 for comments posted before the version 2 identity (src/domain/identity.ts) */
  version?: 1 | 2;
  /** the comment's body as read */
  body: string;
}

/**
 * diffward's finding comments among `comments`, in their order: thread roots (not replies) written by
 * diffward's own bot login (`botLogin`, `<app slug>[bot]`, {@link isOwnComment}) whose body starts with a
 * finding marker ({@link parseFindingMarker}). A marker in anyone else's comment, another bot's included,
 * is someone's text and is ignored.
 */
export function postedFindingComments(
  comments: readonly Pick<ExistingReviewComment, "id" | "body" | "inReplyToId" | "userLogin">[],
  botLogin: string,
): PostedFindingComment[] {
  const out: PostedFindingComment[] = [];
  for (const c of comments) {
    if (c.inReplyToId !== undefined || !isOwnComment(c, botLogin)) continue;
    const marker = parseFindingMarker(c.body);
    if (marker)
      out.push({
        commentId: c.id,
        findingId: marker.id,
        fingerprint: marker.fingerprint,
        ...(marker.shape ? { shape: marker.shape } : {}),
        version: marker.version,
        body: c.body,
      });
  }
  return out;
}
