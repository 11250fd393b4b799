# Image for the API server, the materializer and the replay tools (docker-compose.yml uses it).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: package.json's `prepare` builds dist/ for `npm start`, which needs the dev
# dependencies and the sources; this image runs the sources through tsx (the compose file's
# commands name the .ts entry points). classic-level loads its prebuilt binding without its script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY cmd ./cmd
COPY internal ./internal
COPY proto ./proto
ENV NODE_ENV=production
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["cmd/apiserver.ts", "--data-dir", "/data", "--bind-address", "0.0.0.0"]
