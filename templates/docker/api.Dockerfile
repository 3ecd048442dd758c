# The reference API: the bundle (app/main.mjs) and the CLI archive it serves (app/service-cli.tar.gz).
# Built by `release build --engine docker` from the context the reference build stages (this file and
# app/, in dist/images/<name>/); `release build` sets the five OCI labels itself.
# The daemonless recipe in src/service/release-artifacts.ts says the same: keep them alike.
# BASE_IMAGE: node at /usr/local/bin/node (`release base-image` makes one from this machine).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG SERVICE_VERSION=unknown
ENV SERVICE_VERSION=${SERVICE_VERSION} \
    SERVICE_CLI_ARCHIVE=/app/service-cli.tar.gz \
    HOST=0.0.0.0 \
    PORT=8080
COPY app/ /app/
WORKDIR /app
USER 65534:65534
EXPOSE 8080/tcp
ENTRYPOINT ["/usr/local/bin/node"]
CMD ["/app/main.mjs"]
# Last, in a layer of its own: the CLI archive carries the version, so a full release made from an
# rc re-stamps only this layer. Added to the context by `release build` (the api's cliArchive),
# with its signature service-cli.tar.gz.sig when the build signed it: the wildcard copies both, or
# the archive alone. The signature travels with the archive unlisted, and a release re-signs it.
LABEL org.service-release.version-layer.files=/app/service-cli.tar.gz
COPY service-cli.tar.gz* /app/
