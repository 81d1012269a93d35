// Package rollout holds FleetWorkflow (id fleet:<name>): a release rolled
// over a fleet of registered clusters in waves — a canary first, a bake
// after each wave, a halt when a site goes wrong (docs/fleet.md). It
// starts each site's own RuntimeUpgradeWorkflow and follows it by what
// the site shows; it carries site names and verdicts only, never a site's
// servers.
package rollout
