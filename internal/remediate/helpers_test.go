package remediate

import (
	"time"

	"github.com/rackroll/rackroll/internal/model"
)

// t0 is an arbitrary fixed instant; tests never read the clock.
var t0 = time.Date(2025, 7, 21, 12, 0, 0, 0, time.UTC)

// running is a healthy observation of a running node.
func running(bmm string, role model.Role) Observation {
	return Observation{BMM: bmm, Role: role, Ready: model.ReadyTrue, Exists: true}
}

func readOnly(bmm string, role model.Role) Observation {
	o := running(bmm, role)
	o.ReadOnlyRootFS = true
	return o
}

func unknown(bmm string, role model.Role) Observation {
	o := running(bmm, role)
	o.Ready = model.ReadyUnknown
	return o
}

func provisioning(bmm string, role model.Role) Observation {
	return Observation{BMM: bmm, Role: role, Provisioning: true}
}
