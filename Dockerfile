# The web portal is built with the dev dependencies (Vite, React) in a stage of its own; the image
# keeps only its output (dist/portal).
FROM node:24-bookworm-slim AS portal
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
COPY scripts ./scripts
COPY client ./client
RUN npm ci --no-audit --no-fund

# Node 24 LTS: a version the hosted CI tests (package.json engines: >= 20.19; CI runs 20 and 24).
FROM node:24-bookworm-slim
# tini as PID 1: it forwards docker stop's SIGTERM to the service and reaps orphaned children, which
# node does not do as PID 1 (`serve --processes N` forks N processes). In the image, not compose's
# `init: true`, so `docker run` and other orchestrators get it too.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# patches/ first: npm ci's postinstall applies them (patch-package).
COPY package.json package-lock.json ./
COPY patches ./patches
# --ignore-scripts skips `prepare` (the portal build, done in its stage); patch-package runs by hand.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npx patch-package --error-on-fail && npm cache clean --force
COPY . .
COPY --from=portal /app/dist/portal ./dist/portal
ENV NODE_ENV=production PORT=8080 DATA_DIR=/app/data
# The default (embedded) profile keeps its libsql file and generated JWT secret in DATA_DIR. The
# runtime user cannot create directories under /app, so the directory is made here, owned by that
# user and private to it, before VOLUME (a new volume starts with this directory's owner and mode).
RUN mkdir -p /app/data && chown node:node /app/data && chmod 700 /app/data
VOLUME ["/app/data"]
EXPOSE 8080
USER node
# Readiness of the process that answers: /readyz pings the store. node itself makes the request (the
# slim image has no curl); PORT is the container's own setting.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/tenant-memory.mjs", "serve"]
