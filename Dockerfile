# The kubectl-zoo server image (`kubectl zoo install --server` runs it):
# the static kubectl-zoo binary on distroless/static, as the distroless
# "nonroot" user (65532), the binary as entrypoint. GoReleaser builds it
# (.goreleaser.yaml, dockers_v2) from the binaries it already built, one per
# platform under $TARGETPLATFORM; it is not meant for a plain `docker build`.
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/kubectl-zoo /usr/local/bin/kubectl-zoo
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kubectl-zoo"]
