package bmc

import (
	"context"
	"net/http"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/activities/bmc/gofishclient"
)

// Activities are registered with a worker (worker.RegisterActivity(a)); the
// zero value works with defaults. Every exported method is an activity.
type Activities struct {
	Dial     bmcclient.Dialer // nil: gofishclient.Dial
	Resolver Resolver         // nil: SecretResolver over the worker's env and files, no Secrets

	PollInterval    time.Duration // how often waits poll the BMC; default 5s
	RequestTimeout  time.Duration // per HTTP request; default 30s
	Attempts        int           // tries per step on transient errors; default 5
	Backoff         time.Duration // first pause between tries, doubling up to 30s; default 1s
	ETagAttempts    int           // tries of a PATCH answered 412; default 10
	ShutdownTimeout time.Duration // graceful shutdown before ForceOff; default 5m
	// ResetEvidenceTimeout is how long a reset's effect may take to show
	// after the BMC's 2xx (docs/evidence.md); default 1m.
	ResetEvidenceTimeout time.Duration
	// MediaTimeout is how long a virtual CD and a boot override may take to
	// show what the BMC accepted (vendors lag); default 30s.
	MediaTimeout time.Duration
	// MediaActionTimeout bounds one virtual-media action's request
	// (InsertMedia, EjectMedia, or the PATCH for them) instead of
	// RequestTimeout: slow BMCs take 20–40 s to answer (slow.go); default
	// 3m, never past the step's own time.
	MediaActionTimeout time.Duration
	// PowerOnTimeout is how long a machine may stay Off after the BMC
	// accepted a power-on (real BMCs answer 204 and then may do nothing);
	// default 5m.
	PowerOnTimeout time.Duration
	// Secrets reads a Kubernetes Secret's data: a BMC account's password
	// (accounts.go). nil: the Resolver's, when it is a SecretResolver.
	Secrets func(ctx context.Context, namespace, name string) (map[string][]byte, error)
	// ImageClient asks the image server where an installer URL redirects
	// (redirect.go); nil: http.DefaultClient.
	ImageClient *http.Client
	// Heartbeats (the worker's Temporal client) sends the records a retry
	// relies on to the server at once, past the SDK's batching (run.record);
	// nil: they are batched like every heartbeat.
	Heartbeats HeartbeatRecorder
}

// HeartbeatRecorder sends an activity's heartbeat to the server now, as
// client.Client.RecordActivityHeartbeat does.
type HeartbeatRecorder interface {
	RecordActivityHeartbeat(ctx context.Context, taskToken []byte, details ...interface{}) error
}

func (a *Activities) dial() bmcclient.Dialer {
	if a.Dial != nil {
		return a.Dial
	}
	return gofishclient.Dial
}

func (a *Activities) resolver() Resolver {
	if a.Resolver != nil {
		return a.Resolver
	}
	return SecretResolver{}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Defaults for zero fields.
func (a *Activities) pollInterval() time.Duration {
	return orDefault(a.PollInterval, 5*time.Second)
}

func (a *Activities) requestTimeout() time.Duration {
	return orDefault(a.RequestTimeout, 30*time.Second)
}

func (a *Activities) attempts() int { return orDefault(a.Attempts, 5) }

func (a *Activities) backoff() time.Duration { return orDefault(a.Backoff, time.Second) }

func (a *Activities) etagAttempts() int { return orDefault(a.ETagAttempts, 10) }

func (a *Activities) powerOnTimeout() time.Duration {
	return orDefault(a.PowerOnTimeout, 5*time.Minute)
}

func (a *Activities) mediaTimeout() time.Duration {
	return orDefault(a.MediaTimeout, 30*time.Second)
}

func (a *Activities) mediaActionTimeout() time.Duration {
	return orDefault(a.MediaActionTimeout, 3*time.Minute)
}

func (a *Activities) shutdownTimeout() time.Duration {
	return orDefault(a.ShutdownTimeout, 5*time.Minute)
}

const maxBackoff = 30 * time.Second

// ReadPower reports the System's power state and health.
func (a *Activities) ReadPower(ctx context.Context, ep Endpoint) (PowerStatus, error) {
	return perform(ctx, a, ep, func(r *run) (PowerStatus, error) {
		s, err := r.system("read the System")
		if err != nil {
			return PowerStatus{}, err
		}
		return PowerStatus{PowerState: s.PowerState, Health: s.Health}, nil
	})
}
