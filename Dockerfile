FROM node:22-bookworm-slim
WORKDIR /app
# patches/ first: npm ci's postinstall applies them (patch-package).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production PORT=8080
EXPOSE 8080
USER node
CMD ["node", "bin/tenant-memory.mjs", "serve"]
