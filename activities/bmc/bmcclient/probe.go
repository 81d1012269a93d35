package bmcclient

import "context"

// Prober is what `starter site check` (bmc.Probe) asks of a client beyond
// Client: how it logged in and what the BMC shows without being asked by
// an activity. It only reads.
type Prober interface {
	// SessionService is where the client created its session; "": the
	// BMC links no SessionService and every request carries basic auth.
	SessionService() string
	// ServesWithoutAuth: the System answers a request that carries no
	// credentials (authentication is off on the BMC).
	ServesWithoutAuth(ctx context.Context) bool
}
