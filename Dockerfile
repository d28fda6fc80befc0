# syntax=docker/dockerfile:1
#
# stacksync container image. Releases are built from it by .github/workflows/release.yml for
# linux/amd64 and linux/arm64 and pushed to ghcr.io/<owner>/stacksync:<version> (docs/deploy.md).
#
#   docker build -t stacksync .
#   docker run --rm -p 9464:9464 \
#     -v "$PWD/config:/etc/stacksync:ro" -v "$PWD/manifests:/manifests:ro" -v stacksync-state:/var/lib/stacksync \
#     -e STACKSYNC_KEY_ID -e STACKSYNC_KEY_SECRET --read-only stacksync
#
# Layout: config at /etc/stacksync/stacksync.yaml, manifests at /manifests (both read-only mounts),
# state on the volume /var/lib/stacksync (set `state: /var/lib/stacksync/state.json` in the config;
# the working directory is that volume, so the default relative path lands there too). Nothing
# else is written, so the root filesystem can be read-only. test/container/image.test.ts checks
# this file and runs its production install step outside a container engine.

# ---- build: dev dependencies, TypeScript → dist/ (and the bundled CLI, dist/bundle/), and the
# published JSON Schemas → schemas/ (generated from the code, not committed)
# dist/ is plain JavaScript, the same for every architecture, so a multi-platform build
# (.github/workflows/release.yml: linux/amd64 and linux/arm64) compiles it once, natively, instead
# of under emulation. The stages below run on the target platform; none downloads anything
# architecture-specific (node's base image and Debian's tini exist for both).
FROM --platform=$BUILDPLATFORM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# Every script `npm run build` runs (test/container/image.test.ts checks the list against package.json).
COPY scripts/emulator-kinds.mjs scripts/precompile-validators.mjs scripts/bundle.mjs scripts/postbuild.mjs scripts/write-schemas.mjs scripts/
COPY src src
RUN npm run build

# ---- deps: production dependencies only (no TypeScript, no vitest)
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# ---- runtime
FROM node:22-bookworm-slim AS runtime
# tini as PID 1: it forwards SIGTERM/SIGINT to Node (stacksync's handlers then drain in-flight
# requests and save the state) and reaps zombies, which Node as PID 1 would not do.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    STACKSYNC_CONFIG=/etc/stacksync/stacksync.yaml \
    STACKSYNC_MANIFESTS=/manifests
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/schemas ./schemas
COPY package.json ./
RUN ln -s /app/dist/cli.js /usr/local/bin/stacksync \
  && groupadd --system --gid 10001 stacksync \
  && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/stacksync --shell /usr/sbin/nologin stacksync \
  && mkdir -p /var/lib/stacksync /etc/stacksync /manifests \
  && chown 10001:10001 /var/lib/stacksync
VOLUME ["/var/lib/stacksync"]
WORKDIR /var/lib/stacksync
USER 10001:10001
EXPOSE 9464
# No curl in the slim image: Node's own fetch asks /healthz (process alive; /readyz is for traffic).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "stacksync"]
CMD ["run"]
