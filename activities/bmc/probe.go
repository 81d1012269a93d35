package bmc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/rackroll/rackroll/activities/bmc/gofishclient"
	"github.com/rackroll/rackroll/internal/firmware"
	"github.com/rackroll/rackroll/internal/sitecheck"
)

// Probe looks at one BMC the way the activities will use it and reports
// what it found for `starter site check`. It only reads: no power action,
// no PATCH, no media insert; its one session is logged out on return.
// baseline is the firmware the site's runtime version requires (nil:
// none declared); the firmware is read and judged against it.
func Probe(ctx context.Context, ep Endpoint, resolver Resolver, timeout time.Duration, baseline firmware.Baseline) []sitecheck.Item {
	var out []sitecheck.Item
	add := func(it sitecheck.Item) { out = append(out, it) }
	switch {
	case ep.InsecureSkipVerify:
		add(sitecheck.Warning("TLS verified", "insecureSkipVerify is set: the BMC's identity is not checked", "set caFile to the CA that signed the BMC's certificate and drop insecureSkipVerify"))
	case strings.HasPrefix(strings.ToLower(strings.TrimSpace(ep.Address)), "http://"):
		add(sitecheck.Warning("TLS verified", "plain HTTP: credentials cross the network in clear", "enable HTTPS on the BMC and use an https:// address"))
	}
	creds, err := resolver.Resolve(ctx, ep.Credentials)
	if err != nil {
		return append(out, sitecheck.Blocker("credentials", describe(err), "fix the bmcCredentials entry this server names"))
	}
	c, err := gofishclient.Dial(ctx, ep.conn(), creds, timeout)
	if err != nil {
		return append(out, dialFinding(ep, err)...)
	}
	defer c.Close()
	add(sitecheck.OK("BMC reachable", bmcclient.RedactURL(ep.Address)))
	if !ep.InsecureSkipVerify && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(ep.Address)), "http://") {
		where := "the system roots"
		if ep.CAFile != "" {
			where = ep.CAFile
		}
		add(sitecheck.OK("TLS verified", "against "+where))
	}
	// Only an authenticated read proves the credentials: without a
	// SessionService nothing was sent with them yet (basic auth).
	p, _ := c.(bmcclient.Prober)
	sys, err := c.System(ctx)
	switch {
	case err != nil && (classify(err) == kindAuth || bmcclient.Unauthorized(err)):
		return append(out, sitecheck.Blocker("login", "reading the System was refused: "+describe(err), "check the username and password the server's bmcCredentials reference points at"))
	case err != nil:
		add(sitecheck.OK("login", "credentials not refused"))
		return append(out, sitecheck.Blocker("System found", describe(err), "the BMC must list a ComputerSystem under /redfish/v1/Systems"))
	}
	how := "a session"
	if p != nil && p.SessionService() == "" {
		how = "basic auth"
	}
	// A BMC that serves without credentials proves nothing by a read, and
	// may accept any login: one verdict, not checked.
	noAuth := p != nil && p.ServesWithoutAuth(ctx)
	if noAuth {
		add(sitecheck.Warning("login", "not checked: the BMC serves the System without credentials, so reading it with "+how+" proves nothing about them",
			"turn on Redfish authentication on the BMC at "+bmcclient.RedactURL(ep.Address)+", then run site check again to check the credentials"))
	} else {
		add(sitecheck.OK("login", "credentials accepted: the System was read with "+how))
	}
	if p != nil && p.SessionService() != "" {
		add(sitecheck.OK("sessions", "SessionService at "+p.SessionService()))
	} else {
		add(sitecheck.Warning("sessions", "no SessionService: every request logs in with basic auth", "enable the Redfish SessionService (iLO logs every basic-auth login; iDRAC limits logins)"))
	}
	add(sitecheck.OK("System found", "PowerState "+sys.PowerState))
	if noAuth {
		add(sitecheck.Warning("authentication", fmt.Sprintf("the BMC of %s at %s serves the System without credentials: anyone who reaches it can reset or reimage the machine", ep.BMM, bmcclient.RedactURL(ep.Address)),
			"turn on Redfish authentication on the BMC at "+bmcclient.RedactURL(ep.Address)+" (bmcweb built with insecure-disable-auth, or sushy-tools without an auth file, serves everyone)"))
	}
	out = append(out, mediaFinding(ctx, c)...)
	if t, ok := ChooseBootTarget(sys.BootTargets); ok {
		add(sitecheck.OK("boot target", fmt.Sprintf("%s (allowed: %s)", t, listOrNone(sys.BootTargets))))
	} else {
		add(sitecheck.Blocker("boot target", "allowed: "+listOrNone(sys.BootTargets), "the BMC must allow a one-time boot from Cd or UsbCd"))
	}
	add(bootModeFinding(bootModeOfEndpoint(ep), sys))
	out = append(out, resetFindings(sys.ResetTypes)...)
	return append(out, firmwareFindings(ctx, c, baseline)...)
}

// dialFinding says which of reachability, TLS and login failed.
func dialFinding(ep Endpoint, err error) []sitecheck.Item {
	var f *bmcclient.Failure // the client's own: a wrong address, CA file or TLS
	switch {
	case classify(err) == kindAuth || bmcclient.Unauthorized(err):
		return []sitecheck.Item{sitecheck.OK("BMC reachable", bmcclient.RedactURL(ep.Address)),
			sitecheck.Blocker("login", describe(err), "check the username and password the server's bmcCredentials reference points at")}
	case errors.As(err, &f) && f.Kind == bmcclient.Config && strings.Contains(f.Msg, "certificate"):
		return []sitecheck.Item{sitecheck.OK("BMC reachable", bmcclient.RedactURL(ep.Address)), sitecheck.Blocker("TLS verified", f.Msg, "set caFile (per BMC or bmcCAFile per site) to the CA that signed the BMC's certificate")}
	case errors.As(err, &f) && f.Kind == bmcclient.Config:
		return []sitecheck.Item{sitecheck.Blocker("BMC reachable", f.Msg, "fix the server's bmc.address")}
	}
	return []sitecheck.Item{sitecheck.Blocker("BMC reachable", describe(err), "check the address, the network path from the worker and that the BMC answers Redfish")}
}

func mediaFinding(ctx context.Context, c bmcclient.Client) []sitecheck.Item {
	colls, err := c.MediaCollections(ctx)
	if err != nil {
		return []sitecheck.Item{sitecheck.Blocker("virtual CD", "could not list virtual media: "+describe(err), "the BMC must expose VirtualMedia (a license may be needed: iDRAC Enterprise, iLO Advanced)")}
	}
	var members []bmcclient.MediaInfo
	for _, coll := range colls {
		uris, err := c.MediaMembers(ctx, coll)
		if err != nil {
			continue
		}
		for _, u := range uris {
			if m, err := c.Medium(ctx, bmcclient.MediaInfo{URI: u, Location: coll.Location}); err == nil {
				members = append(members, m)
			}
		}
	}
	m, why, ok := ChooseVirtualCD(members)
	if !ok {
		return []sitecheck.Item{sitecheck.Blocker("virtual CD", fmt.Sprintf("none of %d virtual-media members is a usable CD: %s", len(members), why), "the BMC must offer a virtual CD/DVD (a license may be needed)")}
	}
	return []sitecheck.Item{sitecheck.OK("virtual CD", fmt.Sprintf("%s %s (%s)", m.Location, m.ID, why))}
}

// resetFindings: rackroll needs a forced restart and power on; a graceful
// shutdown is preferred but ForceOff after the limit works without it.
func resetFindings(types []string) []sitecheck.Item {
	has := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	var out []sitecheck.Item
	if len(types) == 0 || (has("ForceRestart") || has("ForceOff")) && has("On") {
		detail := "allowed: " + listOrNone(types)
		if len(types) == 0 {
			detail = "not listed: the standard types are assumed"
		}
		out = append(out, sitecheck.OK("reset types", detail))
	} else {
		out = append(out, sitecheck.Blocker("reset types", "allowed: "+listOrNone(types), "the BMC must allow On and ForceRestart (or ForceOff)"))
	}
	if len(types) == 0 || CanShutdownGracefully(types) {
		out = append(out, sitecheck.OK("graceful shutdown", "possible"))
	} else {
		out = append(out, sitecheck.Warning("graceful shutdown", "no GracefulShutdown reset type", "power-off will go straight to ForceOff"))
	}
	return out
}

func listOrNone(v []string) string {
	if len(v) == 0 {
		return "none listed"
	}
	return strings.Join(v, ", ")
}
