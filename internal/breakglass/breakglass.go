// Package breakglass decides the operator's overrides of the ledger (pure):
// resuming a Degraded or Failed cluster and freeing a lease whose holder
// has ended. The ledger (workflows/cluster/breakglass.go) calls these from
// its Update validators and handlers; forced actions are lease.Check's
// (Request.Force).
package breakglass

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/internal/api"
	"github.com/rackroll/rackroll/internal/lease"
	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/upgradeplan"
)

// ResumePrefix starts the message of a resumed cluster.
const ResumePrefix = "resumed by "

// CheckResume refuses a resume before anything changes, naming every
// problem: a reason is required and only a Degraded or Failed cluster is
// resumed (an upgrade in progress is continued or cancelled instead).
func CheckResume(c model.Cluster, r api.ResumeRequest) error {
	var errs []error
	errs = append(errs, lease.CheckReason(true, r.Reason))
	switch c.DetailedStatus {
	case model.ClusterDegraded, model.ClusterFailed:
	case model.ClusterUpdating, model.ClusterUpdatePaused:
		errs = append(errs, fmt.Errorf("cluster %s is %s: an upgrade is in progress; continue or cancel it (starter upgrade continue|cancel), resume is for Degraded or Failed",
			c.Name, c.DetailedStatus))
	default:
		errs = append(errs, fmt.Errorf("cluster %s is %s: resume is for a Degraded or Failed cluster", c.Name, orRunning(c.DetailedStatus)))
	}
	return errors.Join(errs...)
}

// Resume returns what was wrong (the report the operator sees) and the
// act to record; the caller sets the cluster to report.Status/Message.
func Resume(st api.ClusterState, r api.ResumeRequest, now time.Time) (api.ResumeResult, api.BreakGlassAct) {
	c := st.Cluster
	res := api.ResumeResult{PreviousStatus: c.DetailedStatus, PreviousMessage: c.DetailedStatusMessage,
		Unhealthy: []string{}, MissingKCP: lease.MissingKCP(c), Leases: append([]lease.Lease{}, st.Leases...), Status: model.ClusterRunning}
	for _, b := range c.BMMs {
		if b.MarkedUnhealthy() {
			res.Unhealthy = append(res.Unhealthy, b.Name)
		}
	}
	if res.MissingKCP == nil {
		res.MissingKCP = []string{}
	}
	was := c.DetailedStatus
	if c.DetailedStatusMessage != "" {
		was += ": " + c.DetailedStatusMessage
	}
	res.Message = fmt.Sprintf("%s%s at %s: %s (was %s)", ResumePrefix, by(r.By), now.UTC().Format(time.RFC3339), strings.TrimSpace(r.Reason), was)
	return res, api.BreakGlassAct{Time: now, Act: api.ActResume, Reason: strings.TrimSpace(r.Reason), By: r.By, Detail: "was " + was}
}

// ResumedDuring reports whether c is Running because an operator resumed
// it from status with exactly message msg (the storm guard then leaves it
// Running until its message changes).
func ResumedDuring(c model.Cluster, status, msg string) bool {
	return c.DetailedStatus == model.ClusterRunning && strings.HasPrefix(c.DetailedStatusMessage, ResumePrefix) &&
		strings.HasSuffix(c.DetailedStatusMessage, "(was "+status+": "+msg+")")
}

// CheckRelease refuses a lease release before anything changes, naming
// every problem, and returns the lease to free. Whether its holder still
// runs is the ledger's to find out (an activity): see Released.
func CheckRelease(st api.ClusterState, r api.LeaseReleaseRequest) (lease.Lease, error) {
	var errs []error
	errs = append(errs, lease.CheckReason(true, r.Reason))
	var held lease.Lease
	switch _, known := st.Cluster.BMM(r.BMM); {
	case r.BMM == "":
		errs = append(errs, fmt.Errorf("bmm is empty: name the BMM whose lease to free"))
	case !known:
		errs = append(errs, fmt.Errorf("bmm %q is not in cluster %s", r.BMM, st.Cluster.Name))
	default:
		var ok bool
		if held, ok = lease.HeldOn(st.Leases, r.BMM); !ok {
			errs = append(errs, fmt.Errorf("bmm %s holds no lease: nothing to release", r.BMM))
		}
	}
	return held, errors.Join(errs...)
}

// Released decides a release once the holder's state is known: refused
// while the holder runs (its lease is what keeps others off the machine),
// else the act to record.
func Released(l lease.Lease, holderRunning bool, r api.LeaseReleaseRequest, now time.Time) (api.BreakGlassAct, error) {
	if holderRunning {
		return api.BreakGlassAct{}, fmt.Errorf("the lease on %s is held by %s (%s), which is still running: it is not released while its holder runs; cancel the holder first (temporal workflow cancel -w %s)",
			l.BMM, l.Holder, l.Operation, l.Holder)
	}
	return api.BreakGlassAct{Time: now, Act: api.ActLeaseRelease, BMM: l.BMM, Holder: l.Holder, Reason: strings.TrimSpace(r.Reason), By: r.By,
		Detail: fmt.Sprintf("freed the %s lease of %s held since %s; its holder has ended", l.Operation, l.Holder, l.Since.UTC().Format(time.RFC3339))}, nil
}

// Forced is the act of a forced lease grant. A forced replace also skips
// the firmware check against the baseline of the runtime it installs
// (docs/firmware-replace-upgrade.md#replace): the act says so when that runtime has one.
func Forced(st api.ClusterState, req lease.Request, now time.Time) api.BreakGlassAct {
	c := st.Cluster
	status := orRunning(c.DetailedStatus)
	if c.DetailedStatusMessage != "" {
		status += ": " + c.DetailedStatusMessage
	}
	detail := fmt.Sprintf("forced %s of %s while the cluster was %s (lease granted; the action's own row says how it ended)", req.Operation, req.BMM, status)
	if b, ok := c.BMM(req.BMM); ok && req.Operation == lease.OpReplace {
		if v := upgradeplan.InstallVersion(c, st.UpgradeTarget, *b); st.Firmware[v] != nil {
			detail += fmt.Sprintf("; the firmware check against the baseline of runtime %s is skipped", v)
		}
	}
	return api.BreakGlassAct{Time: now, Act: api.ActForce, BMM: req.BMM, Holder: req.Holder, Reason: strings.TrimSpace(req.Reason), By: req.By, Detail: detail}
}

// Append adds act to the log, keeping the last api.MaxBreakGlassKept.
func Append(log []api.BreakGlassAct, act api.BreakGlassAct) []api.BreakGlassAct {
	out := append(append([]api.BreakGlassAct(nil), log...), act)
	if n := len(out); n > api.MaxBreakGlassKept {
		out = out[n-api.MaxBreakGlassKept:]
	}
	return out
}

func by(s string) string {
	if s == "" {
		return "an unnamed operator"
	}
	return s
}

func orRunning(s string) string {
	if s == "" {
		return model.ClusterRunning
	}
	return s
}
