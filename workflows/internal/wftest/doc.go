// Package wftest is the workflow tests' harness, shared by the tests of
// every workflow package and never linked into the product: the fake site
// (ledger, kube, BMC, firmware and image mocks), the test-environment
// constructors, the event recorder of the property tests and the fixtures
// several families share. It imports no workflow package (their in-package
// tests import it): the workflows a test starts by name are added to
// Workflows by that test's package.
package wftest
