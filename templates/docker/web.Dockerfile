# The reference web client: built with SERVICE_CLIENT_VERSION (app/web/) and its static server (app/main.mjs).
# Built by `release build --engine docker` from the context the reference build stages (this file and
# app/, in dist/images/<name>/); `release build` sets the five OCI labels itself.
# The daemonless recipe in src/service/release-artifacts.ts says the same: keep them alike.
# BASE_IMAGE: node at /usr/local/bin/node (`release base-image` makes one from this machine).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG SERVICE_CLIENT_VERSION=unknown
ENV SERVICE_CLIENT_VERSION=${SERVICE_CLIENT_VERSION} \
    WEB_ROOT=/app/web \
    HOST=0.0.0.0 \
    PORT=8080
COPY app/ /app/
WORKDIR /app
USER 65534:65534
EXPOSE 8080/tcp
ENTRYPOINT ["/usr/local/bin/node"]
CMD ["/app/main.mjs"]
# Last, in a layer of its own: the files that carry the version (release build stages them under
# version-layer/ too), so a full release made from an rc re-stamps only this layer.
LABEL org.service-release.version-layer.files=/app/web/index.html,/app/web/version.json
COPY version-layer/ /
