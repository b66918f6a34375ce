# syntax=docker/dockerfile:1
# Multi-stage build. `deps` installs the production dependencies only, from package.json and the lock
# file alone, so that stage (and the runtime layer that copies it) is rebuilt only when dependencies
# change; a source change rebuilds `build` and the small runtime layers that copy its output. `build`
# runs the same steps as CI (.ci/run): npm ci, prisma generate, tsc build. The runtime stage runs as a
# non-root user. Both earlier stages stay behind as build cache only: `docker builder prune` reclaims them.
# Node.js 24 is the active LTS line; package.json's `engines` (^20.19 || ^22.13 || >=24) is the range
# every dependency accepts, and the tests run on 20.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
# node-gyp finds Node's headers in the image (/usr/local/include/node) instead of downloading them,
# should a native module (argon2) have to be compiled.
ENV npm_config_nodedir=/usr/local
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only: no devDependencies, and no optional packages, which here are mostly
# the optional peers of @prisma/client (the prisma CLI and typescript, ~240 MB). Install scripts are
# skipped (argon2's is the only one package.json allows): argon2 loads its prebuilt binary. Only when
# that does not load here (an unusual platform) is a toolchain installed and argon2 compiled; npm's
# download cache is dropped.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts \
 && if ! node -e "require('argon2')" 2>/dev/null; then \
      apt-get update \
      && apt-get install -y --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/* \
      && npm rebuild argon2 --no-audit --no-fund; \
    fi \
 && node -e "require('argon2')" \
 && npm cache clean --force \
 && test ! -e node_modules/typescript && test ! -e node_modules/prisma && test ! -e node_modules/tsx

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Every dependency, to build with; nothing here is loaded at run time, so argon2 needs no binary here.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm cache clean --force
# The Prisma client (into src/generated) depends on the schema alone, so it is generated before the
# sources are copied and reused while the schema is unchanged. The client needs no engine binary with
# the pg adapter; the CLI must not try to download one.
COPY prisma.config.ts ./
COPY prisma ./prisma
RUN npm run generate
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The web console: its sources and the OpenAPI types it is checked against; `npm run build` bundles it
# with Vite into console/dist, which the runtime stage carries (served at /console).
COPY console ./console
RUN npm run build && test -f console/dist/index.html

FROM ${NODE_IMAGE} AS runtime
# WITH_CHROMIUM=true adds Debian's Chromium for the browser renderer; the default image stays slim
# and its workers refuse browser Runs (the API answers 422 BROWSER_UNAVAILABLE while no worker has Chromium).
ARG WITH_CHROMIUM=false
RUN if [ "$WITH_CHROMIUM" = "true" ]; then apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation && rm -rf /var/lib/apt/lists/*; fi
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    STORAGE_DIR=/data/storage
WORKDIR /app
# Both exist in the image, owned by `node`: a new named volume mounted there takes that ownership.
RUN mkdir -p /data/storage /data/keys && chown -R node:node /data
# Dependencies first: this layer is reused as long as the `deps` stage is (the lock file is unchanged).
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=deps --chown=node:node /app/package.json ./package.json
# Fail the build, not the first login, when argon2's native binary does not load here.
RUN node -e "import('argon2').then((a) => a.hash('build-check')).then(() => console.log('argon2 loads'), (e) => { console.error('argon2 does not load:', e.message); process.exit(1); })"
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/console/dist ./console/dist
COPY --from=build --chown=node:node /app/prisma ./prisma
USER node
EXPOSE 8080
VOLUME ["/data/storage"]
# The API's check; the worker's service overrides it with `node dist/worker-health.js`.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server.js"]
