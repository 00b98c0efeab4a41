# The embedded service in a container (docs/OPERATIONS.md "Container"): the official Deno image at
# the project's pinned version, the npm packages installed at build time (nothing is fetched when
# it runs), SQLite and the keys in the /data volume, listening on 0.0.0.0:8080. The service is the
# container's first process, run by `deno run` directly (no `deno task`/`npx` between): a
# `docker stop` SIGTERM reaches it and drains it. tests/e2e/container_test.ts runs the ENTRYPOINT
# below with this file's ENV (the image itself cannot be built where the tests run).
FROM denoland/deno:2.9.6
WORKDIR /app
USER deno
COPY --chown=deno:deno deno.json deno.lock ./
COPY --chown=deno:deno . .
RUN deno install --frozen && deno cache api/deno/main.ts
ENV HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
USER root
RUN mkdir -p /data && chown deno:deno /data && chmod 0700 /data
USER deno
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["deno", "run", "-A", "--quiet", "api/deno/main.ts"]
