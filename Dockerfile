# syntax=docker/dockerfile:1
# Multi-stage build. The build stage runs the same steps as CI (.ci/run): npm ci, prisma generate,
# tsc build; the runtime stage keeps production dependencies only and runs as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY src ./src
# The client needs no engine binary with the pg adapter; the CLI must not try to download one.
RUN PRISMA_SCHEMA_ENGINE_BINARY=/bin/false npx prisma generate \
 && npm run build \
 && npm prune --omit=dev

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    STORAGE_DIR=/data/storage
WORKDIR /app
RUN mkdir -p /data/storage && chown -R node:node /data
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/prisma ./prisma
COPY --from=build --chown=node:node /app/package.json ./package.json
USER node
EXPOSE 8080
VOLUME ["/data/storage"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server.js"]
