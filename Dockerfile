# One image for both apps; docker-compose picks the command (api or worker).
FROM oven/bun:1.4.5-slim
WORKDIR /app
COPY package.json bun.lock turbo.json tsconfig.base.json ./
COPY patches ./patches
COPY apps ./apps
COPY packages ./packages
RUN bun install --frozen-lockfile --production
# The processes run as the image's unprivileged `bun` user; the code stays root's and
# read-only to them. Only the data directory is theirs: a named volume mounted on
# /data/files starts with this ownership when it is first created.
RUN mkdir -p /data/files && chown -R bun:bun /data
ENV NODE_ENV=production DATA_DIR=/data STORAGE_DIR=/data/files
USER bun
EXPOSE 3000
# Liveness of the default command, the api, on $PORT (3000); the slim image has no curl.
# The worker's service probes its own port (WORKER_HTTP_PORT) instead.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["bun", "apps/deploy/src/healthcheck.ts"]
CMD ["bun", "run", "apps/api/src/main.ts"]
