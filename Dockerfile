# ao-broker image: build with devDependencies, run with production dependencies only.
# The PAT is never part of the image: give it at run time (compose secret, GITHUB_TOKEN env, or
# upstream.tokenFile in the config). Redis is not included; point --redis at one.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds, which needs the sources copied below.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY README.md LICENSE ./
RUN mkdir -p /run/ao-broker /var/log/ao-broker /home/node/.ao-broker \
  && chown node:node /run/ao-broker /var/log/ao-broker /home/node/.ao-broker
USER node
EXPOSE 7878
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["start", "--listen", "0.0.0.0:7878"]
