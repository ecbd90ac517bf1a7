/**
 * Development: forwards GitHub's webhook deliveries from the smee.io channel in `WEBHOOK_PROXY_URL` (Probot's
 * convention; the setup flow writes it to `.env`) to this machine's webhook endpoint, with smee.io's own client
 * (`smee-client`, run through npx: not a dependency of diffward). `npm run proxy` in a second terminal.
 */
import { spawn } from "node:child_process";
import { loadDotEnv } from "../src/config/env.js";

loadDotEnv();
const url = process.env.WEBHOOK_PROXY_URL;
if (!url) {
  console.error(
    "WEBHOOK_PROXY_URL is not set: create a channel at https://smee.io/new and put its URL in .env (Probot's setup flow does it for you).",
  );
  process.exit(1);
}
const port = process.env.PORT || "3000";
const child = spawn(
  "npx",
  ["--yes", "smee-client@5.0.0", "--url", url, "--path", "/api/github/webhooks", "--port", port],
  { stdio: "inherit" },
);
child.on("exit", (code) => process.exit(code ?? 1));
