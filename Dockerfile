# One image for both apps; docker-compose picks the command (api or worker).
FROM oven/bun:1.4.5-slim
WORKDIR /app
COPY package.json bun.lock turbo.json tsconfig.base.json ./
COPY patches ./patches
COPY apps ./apps
COPY packages ./packages
RUN bun install --frozen-lockfile --production
ENV NODE_ENV=production
EXPOSE 3000
CMD ["bun", "run", "apps/api/src/main.ts"]
