# Server image on the current Node LTS line. Build: docker build -t svc-server .
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json tsconfig*.json nest-cli.json ./
COPY libs/common/package.json libs/common/
COPY apps/server/package.json apps/server/
COPY apps/runtime/package.json apps/runtime/
COPY apps/cli/package.json apps/cli/
COPY apps/web/package.json apps/web/
# npm install, as in .ci/run: npm 11 lockfiles omit other platforms' optional packages that npm ci then demands.
RUN npm install --no-audit --no-fund
COPY libs libs
COPY apps apps
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production STAGING=0 CERTIFICATE_PATH=/data/svc/certs/ DATA_DIR=/data/svc
WORKDIR /app
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/libs/common/package.json libs/common/package.json
COPY --from=build /src/libs/common/dist libs/common/dist
COPY --from=build /src/apps/server/package.json apps/server/package.json
COPY --from=build /src/apps/server/dist apps/server/dist
# The web dashboard, static files the server serves at / (WEB_DIR defaults to apps/web/dist beside the server).
COPY --from=build /src/apps/web/dist apps/web/dist
COPY LICENSE ./
USER node
EXPOSE 8084/tcp 8084/udp 8085/tcp
CMD ["node", "apps/server/dist/main.js"]
