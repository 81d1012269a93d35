package lab

import (
	"fmt"

	"github.com/rackroll/rackroll/internal/lab/kubesim"
	"github.com/rackroll/rackroll/internal/lab/pki"
	"github.com/rackroll/rackroll/internal/lab/redfish"
	"github.com/rackroll/rackroll/internal/model"
)

// bmcCAFile is the lab CA's certificate under the lab's Dir.
const bmcCAFile = "bmc-ca.crt"

// startBMCs makes the lab's BMC CA and starts one BMC per server, each
// over HTTPS with a certificate for 127.0.0.1 signed by that CA, playing
// the vendor profile the lab section gives it.
func (l *Lab) startBMCs(inv *model.Inventory, spec *Spec, t Timings) error {
	ca, err := pki.NewCA(l.Dir, bmcCAFile, "rackroll-lab-bmc-ca")
	if err != nil {
		return fmt.Errorf("lab: BMC CA: %w", err)
	}
	l.BMCCAFile, l.bmcCA = ca.CertFile, ca
	for _, ref := range inv.Servers() {
		s := ref.Server
		m := l.machines[s.Name]
		c := l.creds[s.BMC.Credentials]
		name := s.Name
		m.Profile = spec.ProfileOf(ref.Rack, name)
		m.BMC = redfish.New(redfish.Config{
			BMM: name, Rack: ref.Rack,
			Username: c.username, Password: c.password,
			RuntimeVersion: inv.RuntimeVersion,
			SerialNumber:   s.SerialNumber, BootMAC: s.BootMACAddress,
			Timings: redfish.Timings{PowerTransition: t.PowerTransition.Std(), Boot: t.Boot.Std(), Reimage: t.Reimage.Std(), Media: t.Media.Std(),
				Firmware: t.Firmware.Std(), BMCReset: t.BMCReset.Std()},
			Events:   l.Events,
			Profile:  m.Profile,
			Firmware: spec.FirmwareOf(ref.Rack, name),
			Unracked: l.unracked[name],
			// The BMC fetches the installer from the lab's image server.
			Fetchable: l.images.fetchable,
			Redirect:  l.images.finalURL,
			OnChange: func(st redfish.State) {
				l.Sim.SetMachineState(name, kubesim.MachineState{Powered: st.Power == "On", OSRunning: st.OSRunning, RuntimeVersion: st.RuntimeVersion, Installs: st.ReimageCount})
				l.etcdFollows(name, st)
			},
		})
		if l.unracked[name] {
			l.etcdFollows(name, m.BMC.State()) // off: its member slot waits
			continue
		}
		if err := l.serveBMC(m); err != nil {
			return err
		}
	}
	return nil
}

// serveBMC makes m's BMC answer over HTTPS at a new loopback address, with
// a certificate for 127.0.0.1 signed by the lab's BMC CA.
func (l *Lab) serveBMC(m *Machine) error {
	cert, err := l.bmcCA.ServerCert(m.Name+"-bmc", nil, nil)
	if err != nil {
		return err
	}
	url, err := m.BMC.ServeTLS("127.0.0.1:0", cert)
	if err != nil {
		return fmt.Errorf("lab: BMC of %s: %w", m.Name, err)
	}
	l.mu.Lock()
	m.URL = url
	l.mu.Unlock()
	return nil
}
