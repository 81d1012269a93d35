// Package archtest holds the architecture test: every package of the
// module sits in a layer, and a package that imports a layer above its own
// fails `go test` (and so `make test`). The layers and what each may import
// are docs/design.md#layers-and-what-each-may-import; the table the test
// applies is layers_test.go. The package has no code outside its tests.
package archtest
