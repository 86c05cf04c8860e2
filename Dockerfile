# envdata: one image for every role (migrate, worker, scheduler, simulate); the command picks it.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY config ./config
COPY tsconfig.json ./
USER node
# Graceful stop: SIGTERM lets in-flight chunks finish (ENVDATA_SHUTDOWN_TIMEOUT_MS), then aborts
# the rest and exits. The exec form makes node itself the process that gets the signal (no shell
# in between: bin/envdata.js runs the TypeScript in-process through tsx, with no child). Run it
# with an init (`docker run --init`, or `init: true` in compose, as ours does) so that signals
# reach it from the first millisecond and children are reaped.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/envdata.js"]
CMD ["--help"]
