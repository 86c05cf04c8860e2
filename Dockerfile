# syntax=docker/dockerfile:1
# envdata: one image for every role (migrate, worker, scheduler, simulate); the command picks it.
# Two stages. `build` installs every dependency, compiles the TypeScript (`npm ci` runs the
# `prepare` script, `npm run build`, which writes dist/) and then drops the dev dependencies; the
# runtime stage takes only what runs: dist/, bin/, the production node_modules and package.json
# (no src/, no TypeScript, no tsx or esbuild). No Docker engine runs in CI:
# scripts/check-dockerfile.ts plays the build stage's commands as a script and checks that the
# runtime stage's COPY list exists and runs (`.ci/run`).

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Everything the build reads; .dockerignore keeps out node_modules, a local dist/, tests and
# secrets. No NODE_ENV=production in this stage: `npm ci` would then leave out the compiler.
COPY . .
# The cache mount keeps downloaded packages between builds without putting them in a layer.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
# The production dependencies keep what their install scripts made (the local PostgreSQL's
# libraries, see package.json `allowScripts`).
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
USER node
# Graceful stop: SIGTERM lets in-flight chunks finish (ENVDATA_SHUTDOWN_TIMEOUT_MS), then aborts
# the rest and exits. The exec form makes node itself the process that gets the signal (no shell
# in between: bin/envdata.js runs the compiled dist/ in-process, with no child). Run it with an
# init (`docker run --init`, or `init: true` in compose, as ours does) so that signals reach it
# from the first millisecond and children are reaped.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/envdata.js"]
CMD ["--help"]
