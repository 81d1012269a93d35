// Package remediate makes every decision of the health monitor and the
// remediation workflows without I/O (docs/behaviour.md#remediation: triggers,
// ladders, the storm guard's maxUnhealthy = 1):
//
//   - Observe keeps the durable trigger clocks and says which BMMs are due;
//   - Admit applies the storm guard, the lease, quorum and concurrency rules;
//   - Next walks a role's ladder, each step at most once;
//   - PlanFailover swaps a failed KCP for the spare and picks a new spare.
//
// Functions take the time as an argument and sort what they return, so a
// Temporal workflow can call them directly.
package remediate
