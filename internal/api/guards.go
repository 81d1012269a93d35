package api

// Guards says what the upgrade's guards saw, one line each, for `upgrade
// status` and the Temporal UI (docs/behaviour.md#guards). Nothing before
// they ran.
func (s UpgradeStatus) Guards() []string {
	var out []string
	if c := s.Image; c != nil {
		verdict := "ok"
		if !c.OK {
			verdict = "REFUSED"
		}
		out = append(out, "image "+verdict+": "+c.URL+" answered "+c.Answer)
	}
	if s.Canary != "" {
		out = append(out, "canary: "+s.Canary)
	}
	return out
}
