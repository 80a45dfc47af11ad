# syntax=docker/dockerfile:1
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
# The time zone database Python's zoneinfo reads in code tools (src/code-tools/sandbox-process.ts);
# tini, the image's init (below).
RUN apt-get update && apt-get install -y --no-install-recommends tzdata tini && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production PORT=8787
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json tools.example.json asyncapi.json ./
COPY --chown=node:node assets ./assets
USER node
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# tini as PID 1: passes the signals on to the engine (the kernel drops those a PID 1 has no
# handler for) and reaps the processes that MCP servers' commands leave behind.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
