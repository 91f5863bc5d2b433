# The full private-location agent: every check type, Chromium from Debian for browser checks.
# Build:  docker build -t outpost-agent .
# Run:    docker run -e API_KEY=<private-location key> -e OUTPOST_URL=https://outpost.example.com outpost-agent
#
# RUNTIMES: the runtimes this image carries. The default build carries only the newest;
# the migration build carries three:  docker build --build-arg RUNTIMES="2024.09 2025.04 2026.04" .

FROM node:20-bookworm-slim AS build
# python3, make and g++ build the agent's native addon (src/native: ICMP socket, arrival times).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
RUN npm run build && npm run build:native && npm prune --omit=dev

FROM node:20-bookworm-slim
ARG RUNTIMES="2026.04"
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation ffmpeg ca-certificates tini iputils-ping bubblewrap \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --create-home --home-dir /home/outpost outpost \
 && mkdir -p /var/lib/outpost/spool && chown -R outpost:outpost /var/lib/outpost
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/src/native/build/Release/outpost_native.node ./src/native/build/Release/
COPY package.json README.md ./
COPY runtimes ./runtimes
# Each carried runtime's dependencies, installed without install scripts (they would download
# binaries such as prisma's engines; Playwright uses the Chromium above).
RUN for r in $RUNTIMES; do node dist/runtimes/install.js "$r" || exit 1; done \
 && npm cache clean --force
RUN ln -s /app/dist/cli.js /usr/local/bin/outpost && chmod +x /app/dist/cli.js
ENV NODE_ENV=production \
    AGENT_HEALTH_PORT=8081 \
    OUTPOST_SPOOL_DIR=/var/lib/outpost/spool \
    OUTPOST_AGENT_PROFILE=full \
    OUTPOST_RUNTIMES=${RUNTIMES} \
    CHROMIUM_PATH=/usr/bin/chromium
USER outpost
VOLUME ["/var/lib/outpost/spool"]
EXPOSE 8081
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.AGENT_HEALTH_PORT||8081)+'/-/liveness').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# tini reaps the browser's child processes and forwards SIGTERM for the graceful drain.
ENTRYPOINT ["tini", "--", "outpost", "agent"]
