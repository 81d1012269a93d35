// Package archtest holds the architecture test: every package of the
// module sits in a layer, and a package that imports a layer above its own
// fails `go test` (and so `make test`), in the production build and in the
// lab build (-tags lab, where only the CLI may also import the lab). The
// layers and what each may import are
// docs/design.md#layers-and-what-each-may-import; the table the test
// applies is layers_test.go. image_test.go holds the Dockerfile to it: the
// default target's binaries link no lab (`go list -deps`). The package has
// no code outside its tests.
package archtest
