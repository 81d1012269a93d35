package actions

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/model"
	"github.com/rackroll/rackroll/internal/temporalerr"
)

// Cordon and uncordon (docs/behaviour.md#actions). Cordon with evacuate also drains
// tenant pods and shuts down tenant VMs, the drain and the shutdown each
// proceeding after its share of evacuateTimeout (a PodDisruptionBudget that
// never allows an eviction does not hold the BMM forever). Uncordon makes
// the node schedulable again and restarts the VMs an evacuate stopped
// (VMs that were stopped before stay stopped).

func (a *action) cordon() error {
	if !a.in.Evacuate {
		if err := a.st.Cordon(); err != nil {
			return stepErr("cordon", err)
		}
		a.res.Message, a.res.CordonStatus = fmt.Sprintf("cordoned %s", a.t.Node), model.Cordoned
		return nil
	}
	ev, err := a.st.Evacuate(evacuateLimits(a.in, a.limits))
	if err != nil {
		return stepErr("evacuate", err)
	}
	a.noteEvacuation(ev)
	a.res.CordonStatus = model.Cordoned
	a.res.Message = fmt.Sprintf("cordoned and evacuated %s: %d VMs shut down", a.t.Node, len(ev.Stopped))
	if ev.DrainTimedOut {
		a.res.Message += "; the drain ran out of time and the evacuation proceeded (pods may remain)"
	}
	if ev.VMsTimedOut {
		a.res.Message += "; some VMs had not stopped in time"
	}
	return nil
}

func (a *action) uncordon() error {
	if err := a.st.Uncordon(); err != nil {
		return stepErr("uncordon", err)
	}
	a.res.CordonStatus = model.Uncordoned
	a.res.Message = fmt.Sprintf("uncordoned %s", a.t.Node)
	started, err := a.st.StartVMs()
	if err != nil {
		a.res.Message += "; VMs not restarted: " + temporalerr.Message(err)
		return nil
	}
	a.res.VMsStarted = started.Started
	if len(started.Started) > 0 {
		a.res.Message += fmt.Sprintf("; restarted %d VMs", len(started.Started))
	}
	return nil
}
