# The reference worker: the bundle (app/main.mjs); its health endpoint reports SERVICE_VERSION.
# Built by `release build --engine docker` from the context the reference build stages (this file and
# app/, in dist/images/<name>/); `release build` sets the five OCI labels itself.
# The daemonless recipe in src/service/release-artifacts.ts says the same: keep them alike.
# BASE_IMAGE: node at /usr/local/bin/node (`release base-image` makes one from this machine).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG SERVICE_VERSION=unknown
ENV SERVICE_VERSION=${SERVICE_VERSION} \
    WORKER_HEALTH_HOST=0.0.0.0 \
    WORKER_HEALTH_PORT=8081
COPY app/ /app/
WORKDIR /app
USER 65534:65534
EXPOSE 8081/tcp
ENTRYPOINT ["/usr/local/bin/node"]
CMD ["/app/main.mjs"]
