# The rackroll worker and starter in a small image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/worker ./worker && CGO_ENABLED=0 go build -o /out/starter ./starter

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/worker /out/starter /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/worker"]
