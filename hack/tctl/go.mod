// Tools module: builds the legacy tctl CLI into bin/ for the CLI test and
// for operators who still script against it. Kept apart from the main
// module so tctl's older Temporal dependencies do not leak into rackroll's.
// `go install github.com/temporalio/tctl/cmd/tctl@v1.18.0` does not work
// through the module proxy (its go.mod has replace directives), so it is
// built from inside this module instead.
module github.com/rackroll/rackroll/hack/tctl

go 1.26

require github.com/temporalio/tctl v1.18.0
