package gofishclient

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
)

// What an update request sends, decided from what the BMC declares (pure
// functions: the requests are in update.go). DMTF's UpdateService and
// ActionInfo schemas (DSP0268) say where: the SimpleUpdate action's
// @Redfish.ActionInfo lists its parameters, which are Required and their
// AllowableValues; the action may annotate TransferProtocol's allowable
// values; MultipartHttpPushUri@Redfish.OperationApplyTimeSupport lists the
// apply times a push takes (OpenBMC's bmcweb shows it), and StartUpdate
// applies what was pushed with OnStartUpdateRequest (Supermicro X12:
// bmclib's providers/supermicro/x12_firmware.go).

// updateShape is what an update request needs of the UpdateService, read
// from its raw JSON (gofish keeps action targets and annotations private).
type updateShape struct {
	simple     string   // the SimpleUpdate action's target
	actionInfo string   // its @Redfish.ActionInfo
	protocols  []string // its TransferProtocol@Redfish.AllowableValues; nil: not listed
	push       string   // MultipartHttpPushUri
	pushTimes  []string // the push's OperationApplyTimeSupport SupportedValues; nil: not listed
	start      string   // the StartUpdate action's target
}

func parseUpdateShape(raw []byte) updateShape {
	var d struct {
		Actions   map[string]json.RawMessage
		Push      string `json:"MultipartHttpPushUri"`
		PushTimes struct {
			SupportedValues []string
		} `json:"MultipartHttpPushUri@Redfish.OperationApplyTimeSupport"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return updateShape{}
	}
	var simple struct {
		Target     string   `json:"target"`
		ActionInfo string   `json:"@Redfish.ActionInfo"`
		Protocols  []string `json:"TransferProtocol@Redfish.AllowableValues"`
	}
	var start struct {
		Target string `json:"target"`
	}
	_ = json.Unmarshal(d.Actions["#UpdateService.SimpleUpdate"], &simple) // absent: no action
	_ = json.Unmarshal(d.Actions["#UpdateService.StartUpdate"], &start)
	return updateShape{simple: simple.Target, actionInfo: simple.ActionInfo, protocols: simple.Protocols,
		push: d.Push, pushTimes: d.PushTimes.SupportedValues, start: start.Target}
}

// actionParam is one parameter an ActionInfo declares.
type actionParam struct {
	Required  bool
	Allowable []string
}

// actionParams reads an ActionInfo's Parameters by name.
func actionParams(raw []byte) (map[string]actionParam, error) {
	var d struct {
		Parameters []struct {
			Name            string
			Required        bool
			AllowableValues []string
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("the ActionInfo is not valid JSON: %w", err)
	}
	out := map[string]actionParam{}
	for _, p := range d.Parameters {
		if p.Name != "" {
			out[p.Name] = actionParam{Required: p.Required, Allowable: p.AllowableValues}
		}
	}
	return out, nil
}

// simpleUpdateBody is the SimpleUpdate request: ImageURI, TransferProtocol
// where the BMC allows it, the apply time asked for, and every other
// parameter the ActionInfo requires (params nil: the action has none).
// targets chooses Targets among the allowable values it is given.
func simpleUpdateBody(req bmcclient.UpdateRequest, shape updateShape, params map[string]actionParam,
	targets func(allowed []string) ([]string, error)) (map[string]any, error) {
	body := map[string]any{"ImageURI": req.Image}
	proto, err := transferProtocol(req.Image, shape.protocols, params)
	if err != nil {
		return nil, err
	}
	if proto != "" {
		body["TransferProtocol"] = proto
	}
	if req.ApplyTime != "" {
		body["@Redfish.OperationApplyTime"] = req.ApplyTime
	}
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		switch p := params[n]; {
		case !p.Required, n == "ImageURI", n == "TransferProtocol":
		case n == "Targets":
			t, err := targets(p.Allowable)
			if err != nil {
				return nil, err
			}
			body["Targets"] = t
		default:
			return nil, rejected(fmt.Sprintf("the BMC's SimpleUpdate ActionInfo (%s) requires the parameter %s; rackroll sends only ImageURI, TransferProtocol, Targets and @Redfish.OperationApplyTime",
				shape.actionInfo, n))
		}
	}
	return body, nil
}

// transferProtocol is the TransferProtocol to send: the image URL's
// scheme, where the BMC declares the parameter (its ActionInfo, else the
// action's AllowableValues) and allows that protocol. Nothing declared:
// none (DSP0268: the ImageURI's scheme says it). A protocol the BMC does
// not allow is left out, unless the ActionInfo requires the parameter.
func transferProtocol(image string, annotated []string, params map[string]actionParam) (string, error) {
	var proto string
	if u, err := url.Parse(image); err == nil {
		proto = strings.ToUpper(u.Scheme)
	}
	allowed := annotated
	if params != nil {
		p, ok := params["TransferProtocol"]
		switch {
		case !ok:
			return "", nil
		case len(p.Allowable) == 0:
			return proto, nil
		case p.Required && !slices.Contains(p.Allowable, proto):
			return "", rejected(fmt.Sprintf("TransferProtocol: the image %s is fetched over %s, which the BMC's SimpleUpdate ActionInfo does not allow (allowed: %s)",
				bmcclient.RedactURL(image), proto, strings.Join(p.Allowable, ", ")))
		}
		allowed = p.Allowable
	}
	if slices.Contains(allowed, proto) {
		return proto, nil
	}
	return "", nil
}

// chooseTargets: the component's RelatedItem, else owner() (the System
// for host firmware, the Manager for the BMC's own); where the BMC lists
// allowable targets, only those.
func chooseTargets(kind string, related, allowed []string, owner func() (string, error)) ([]string, error) {
	fits := func(uris []string) []string {
		var out []string
		for _, u := range uris {
			if len(allowed) == 0 || slices.Contains(allowed, u) {
				out = append(out, u)
			}
		}
		return out
	}
	if t := fits(related); len(t) > 0 {
		return t, nil
	}
	o, err := owner()
	if err != nil {
		return nil, err
	}
	if t := fits([]string{o}); len(t) > 0 {
		return t, nil
	}
	tried := append(slices.Clone(related), o)
	return nil, rejected(fmt.Sprintf("Targets: the %s firmware applies to %s, which the BMC does not list (allowed: %s)",
		kind, strings.Join(tried, ", "), strings.Join(allowed, ", ")))
}

// pushApplyTime is the @Redfish.OperationApplyTime a push sends, and
// whether the image then waits for StartUpdate. asked "" is Immediate,
// left out unless the BMC lists apply times. A BMC that lists neither
// the one asked nor OnStartUpdateRequest (with a StartUpdate action) is
// refused before anything is sent.
func pushApplyTime(asked string, supported []string, canStart bool) (send string, awaitsStart bool, err error) {
	if supported == nil {
		return asked, false, nil
	}
	want := asked
	if want == "" {
		want = "Immediate"
	}
	switch {
	case slices.Contains(supported, want):
		return want, false, nil
	case canStart && slices.Contains(supported, "OnStartUpdateRequest"):
		return "OnStartUpdateRequest", true, nil
	}
	return "", false, rejected(fmt.Sprintf("apply.applyTime: %q is not an apply time the BMC lists for pushes (MultipartHttpPushUri@Redfish.OperationApplyTimeSupport: %s)",
		want, strings.Join(supported, ", ")))
}

// pushParameters is the push's UpdateParameters part.
func pushParameters(targets []string, applyTime string) string {
	p := map[string]any{"Targets": targets}
	if targets == nil {
		p["Targets"] = []string{}
	}
	if applyTime != "" {
		p["@Redfish.OperationApplyTime"] = applyTime
	}
	b, _ := json.Marshal(p) // strings only: cannot fail
	return string(b)
}
