# Multi-stage build: compile TypeScript with dev dependencies, ship only production ones, run as non-root.
# No `# syntax=` line: BuildKit's built-in frontend covers this file, and the line would make every build fetch
# the frontend image from Docker Hub first (impossible offline or behind a registry mirror).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# The scanning-service sandbox for a local trial (docker-compose.yml): a development tool, never deployed.
FROM build AS sandbox
COPY dev ./dev
COPY fixtures ./fixtures
ENV SANDBOX_HOST=0.0.0.0
USER node
EXPOSE 4010
CMD ["node", "--import", "tsx", "dev/sandbox/main.ts"]

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
# tini as PID 1: forwards SIGTERM/SIGINT to node and reaps zombies, so `docker stop` runs diffward's drain.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* \
  && printf '#!/bin/sh\nexec node /app/dist/src/index.js "$@"\n' > /usr/local/bin/diffward \
  && chmod 755 /usr/local/bin/diffward
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY app.yml ./
USER node
EXPOSE 3000
# /healthz answers 200 while the process serves; Redis and service reachability are details in its body. It is
# asked on the operations port when METRICS_PORT is set (a worker's only port), else on the webhook port.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.METRICS_PORT||process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# node itself receives the signals (npm as PID 1 would exit and orphan it): test/process/container.test.ts
# runs this exact command line, sends SIGTERM and checks that running jobs finish first.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/index.js"]
