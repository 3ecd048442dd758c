# The reference worker: the bundle (app/main.mjs); its health endpoint reports SERVICE_VERSION.
# Built by `release build --engine docker` from a context it stages itself (this file and app/).
# The oci engine writes the same config without Docker (src/build/image-specs.ts): keep them alike.
# BASE_IMAGE: node at /usr/local/bin/node (`release base-image` makes one from this machine).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG SERVICE_VERSION=unknown
ARG IMAGE_CREATED
ARG IMAGE_REVISION
ARG IMAGE_SOURCE
ARG IMAGE_TITLE=service-worker
ARG IMAGE_VERSION
LABEL org.opencontainers.image.created=${IMAGE_CREATED} \
      org.opencontainers.image.revision=${IMAGE_REVISION} \
      org.opencontainers.image.source=${IMAGE_SOURCE} \
      org.opencontainers.image.title=${IMAGE_TITLE} \
      org.opencontainers.image.version=${IMAGE_VERSION}
ENV SERVICE_VERSION=${SERVICE_VERSION} \
    WORKER_HEALTH_HOST=0.0.0.0 \
    WORKER_HEALTH_PORT=8081
COPY app/ /app/
WORKDIR /app
USER 65534:65534
EXPOSE 8081/tcp
ENTRYPOINT ["/usr/local/bin/node"]
CMD ["/app/main.mjs"]
