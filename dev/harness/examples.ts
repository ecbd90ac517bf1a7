import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

interface ExampleGroup {
  name: string;
  examples: Array<Record<string, unknown> & { action?: string; installation?: unknown }>;
}

/**
 * A real webhook payload from `@octokit/webhooks-examples` (GitHub's own examples), deep-copied: the
 * first example of `event`.`action` that carries an `installation`, as a GitHub App receives it. Events
 * without actions (`push`) pass `action` undefined and may pick an example with `match`.
 * @throws Error when no such example exists.
 */
export function webhookExample(
  event: string,
  action: string | undefined,
  match: (example: Record<string, unknown>) => boolean = () => true,
): Record<string, unknown> {
  const groups = require("@octokit/webhooks-examples/api.github.com/index.json") as ExampleGroup[];
  const example = groups
    .find((g) => g.name === event)
    ?.examples.find((e) => (action === undefined || e.action === action) && e.installation && match(e));
  if (!example)
    throw new Error(
      `no ${event}.${action ?? "*"} example with an installation in @octokit/webhooks-examples`,
    );
  return structuredClone(example);
}
