package etcd

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/rackroll/rackroll/internal/model"
)

// Error types of the temporal.ApplicationErrors the member activities
// return, for retry policies and workflows to match on.
const (
	// ErrTypeUnavailable (retryable): no endpoint answered, or a call
	// failed in a way the next attempt may not.
	ErrTypeUnavailable = "EtcdUnavailable"
	// ErrTypeConfig (non-retryable): bad input or client TLS files.
	ErrTypeConfig = "EtcdConfig"
	// ErrTypeRefused (non-retryable): the change would leave the cluster
	// unsafe (quorum, minimum members) or has nobody to hand over to.
	ErrTypeRefused = "EtcdChangeRefused"
	// ErrTypeNotHealthy (non-retryable): a member did not become a healthy,
	// caught-up voter within the wait's timeout.
	ErrTypeNotHealthy = "EtcdMemberNotHealthy"
)

func configError(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ErrTypeConfig, nil)
}

func refused(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ErrTypeRefused, nil)
}

func unavailable(err error, format string, args ...any) error {
	return temporal.NewApplicationErrorWithCause(fmt.Sprintf(format, args...)+": "+err.Error(), ErrTypeUnavailable, err)
}

// specProblems lists what makes a spec unusable, naming the field.
func specProblems(spec model.EtcdSpec) []string {
	if len(spec.Endpoints) == 0 {
		return []string{"controlPlane.etcd.endpoints is empty: give the etcd client URLs, e.g. https://10.0.0.11:2379"}
	}
	return nil
}

// describe lists members as "name (healthy|unhealthy: why|learner)".
func describe(vs []memberView) string {
	var parts []string
	for _, v := range vs {
		s := v.Name
		if s == "" {
			s = v.ID
		}
		switch {
		case v.Learner:
			s += " learner"
		case v.Healthy:
			s += " healthy"
		default:
			s += " unhealthy: " + v.Err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func joinLines(errs []string) string { return strings.Join(errs, "\n") }
