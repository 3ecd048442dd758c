# The reference web client: built with SERVICE_CLIENT_VERSION (app/web/) and its static server (app/main.mjs).
# Built by `release build --engine docker` from a context it stages itself (this file and app/).
# The oci engine writes the same config without Docker (src/build/image-specs.ts): keep them alike.
# BASE_IMAGE: node at /usr/local/bin/node (`release base-image` makes one from this machine).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG SERVICE_CLIENT_VERSION=unknown
ARG IMAGE_CREATED
ARG IMAGE_REVISION
ARG IMAGE_SOURCE
ARG IMAGE_TITLE=service-web
ARG IMAGE_VERSION
LABEL org.opencontainers.image.created=${IMAGE_CREATED} \
      org.opencontainers.image.revision=${IMAGE_REVISION} \
      org.opencontainers.image.source=${IMAGE_SOURCE} \
      org.opencontainers.image.title=${IMAGE_TITLE} \
      org.opencontainers.image.version=${IMAGE_VERSION}
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
