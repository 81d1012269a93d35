# The rackroll worker and starter in a small image (the default target),
# and the lab (target `lab`: the starter built with the lab, plus etcd and
# kube-apiserver). BuildKit builds only the stages a target needs, so the
# worker image never waits for the Kubernetes build. The default target's
# starter is built without -tags lab: no simulator in what runs at a site
# (docs/design.md#the-lab-is-not-the-product; internal/archtest holds it).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/worker ./worker && CGO_ENABLED=0 go build -o /out/starter ./starter \
    && mkdir -p /out/shared

# The lab's starter: the same commands plus `lab` and `demo`.
FROM build AS build-lab
RUN CGO_ENABLED=0 go build -tags lab -o /out/lab/starter ./starter

# etcd and kube-apiserver for the lab, from the hack/k8s tools module (the
# same pins `make tools` builds into bin/; about 7 minutes cold). Static
# (CGO off) so they run on distroless like the starter.
FROM golang:1.26 AS k8s
WORKDIR /src/hack/k8s
COPY hack/k8s/go.mod hack/k8s/go.sum ./
RUN go mod download
COPY hack/k8s/ ./
RUN CGO_ENABLED=0 go build -ldflags '-s -w' -o /out/bin/etcd go.etcd.io/etcd/server/v3 \
    && CGO_ENABLED=0 go build -ldflags '-s -w' -o /out/bin/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver

# The lab: `starter lab up` finds etcd and kube-apiserver through
# RACKROLL_BIN (internal/toolbin). /shared is where compose's demo keeps
# the lab's files (out-inventory, kubeconfig, generated BMC credentials)
# for the site worker; it belongs to nonroot so the lab may write there.
FROM gcr.io/distroless/static-debian12:nonroot AS lab
ENV RACKROLL_BIN=/usr/local/lib/rackroll
COPY --from=k8s /out/bin/ /usr/local/lib/rackroll/
COPY --from=build-lab /out/lab/starter /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/shared /shared
ENTRYPOINT ["/usr/local/bin/starter"]

# The worker (and the starter, for one-shot commands): last, so it is the
# default target of `docker build .` and of compose's worker.
FROM gcr.io/distroless/static-debian12:nonroot AS worker
COPY --from=build /out/worker /out/starter /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/worker"]
