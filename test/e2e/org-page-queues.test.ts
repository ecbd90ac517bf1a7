/**
 * The organization's page's queue figures over HTTP, after real webhooks (the harness: diffward's web server,
 * the GitHub stand-in's web flow, a real Redis): two installations have pull requests queued (no worker runs,
 * so their jobs wait); each owner's page counts only its own installation's jobs, and only a request that
 * also carries the admin bearer (`DIFFWARD_ADMIN_TOKEN`) gets the whole deployment's queue depths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { addOrgOwner, signInOverHttp } from "../../dev/harness/sign-in.js";
import type { ProblemsSection } from "../../src/org-page/page-model.js";
import { QUEUE_NAMES } from "../../src/runtime/names.js";
import { openPull, sha } from "../support/pr.js";

const ACME = 4300;
const GLOBEX = 4400;
const ADMIN_TOKEN = "admin-bearer-for-the-queues-0123456789";

describe("the organization's page's queue figures", () => {
  let h: Harness;
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    h = await startHarness({ signIn: true, workers: false, adminToken: ADMIN_TOKEN });
    const open = (installationId: number, login: string, n: number, head: number) =>
      openPull(h, {
        head: sha(head),
        number: n,
        repo: "queued",
        installationId,
        owner: { login, type: "Organization" },
      });
    // three pull requests of acme-corp and one of globex wait in the events queue
    for (const [n, head] of [
      [1, 0x4301],
      [2, 0x4302],
      [3, 0x4303],
    ] as const)
      await open(ACME, "acme-corp", n, head);
    await open(GLOBEX, "globex", 1, 0x4401);
    addOrgOwner(h.github, "acme-owner", "acme-corp", ACME);
    addOrgOwner(h.github, "globex-owner", "globex", GLOBEX);
    cookies.acme = (await signInOverHttp(h.web.url, "acme-owner")).cookie;
    cookies.globex = (await signInOverHttp(h.web.url, "globex-owner")).cookie;
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  const problems = async (id: number, cookie: string, bearer?: string) => {
    const res = await fetch(`${h.web.url}/installations/${id}/problems`, {
      headers: { cookie, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as ProblemsSection;
  };
  const events = (queues: ProblemsSection["queues"]) => queues!.find((q) => q.queue === QUEUE_NAMES.events)!;

  it("shows each installation's owner only that installation's jobs, never the deployment's", async () => {
    const acme = await problems(ACME, cookies.acme!);
    expect(events(acme.queues)).toEqual({
      queue: QUEUE_NAMES.events,
      waiting: 3,
      active: 0,
      delayed: 0,
      failed: 0,
    });
    expect(acme.queues!.filter((q) => q.queue !== QUEUE_NAMES.events).every((q) => q.waiting === 0)).toBe(
      true,
    );
    expect(acme.deploymentQueues).toBeNull();
    const globex = await problems(GLOBEX, cookies.globex!);
    expect(events(globex.queues)).toMatchObject({ waiting: 1, active: 0, delayed: 0, failed: 0 });
    expect(globex.deploymentQueues).toBeNull();
    // a wrong bearer is no admin
    expect((await problems(GLOBEX, cookies.globex!, "not-the-admin-token")).deploymentQueues).toBeNull();
  });

  it("shows the whole deployment's queue depths with the admin bearer, as BullMQ counts them", async () => {
    const page = await problems(GLOBEX, cookies.globex!, ADMIN_TOKEN);
    const counts = await h.booted.rt.queues.events.getJobCounts("waiting", "prioritized", "active");
    const deployment = events(page.deploymentQueues);
    expect(deployment.waiting).toBe((counts.waiting ?? 0) + (counts.prioritized ?? 0));
    expect(deployment.waiting).toBeGreaterThanOrEqual(4);
    // the installation's own figures stay its own beside them
    expect(events(page.queues)).toMatchObject({ waiting: 1 });
    const html = await (
      await fetch(`${h.web.url}/installations/${GLOBEX}`, {
        headers: { cookie: cookies.globex!, authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).text();
    expect(html).toContain("<h3>Queues: the whole deployment (admin)</h3>");
    const plain = await (
      await fetch(`${h.web.url}/installations/${GLOBEX}`, { headers: { cookie: cookies.globex! } })
    ).text();
    expect(plain).toContain("<h3>Queues: this installation's jobs</h3>");
    expect(plain).not.toContain("the whole deployment");
  });
});
