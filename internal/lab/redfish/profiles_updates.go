package redfish

func init() {
	register("targets-required", targetsRequired)
	register("tasks-204", tasks204)
	register("supermicro-x12", supermicroX12)
}

// targetsRequired: a SimpleUpdate whose ActionInfo requires Targets and
// declares no TransferProtocol (bmcweb's SimpleUpdateActionInfo shape),
// refusing as sushy-tools does: 400 "Missing ImageURI and/or Targets."
// without them, "Manager is not currently a supported Target." for the
// BMC's own firmware. Otherwise DMTF's mockup.
func targetsRequired() Profile {
	p := dmtf()
	p.Name, p.Product = "targets-required", "Redfish service requiring Targets"
	p.Updates = UpdateShape{TargetsRequired: true}
	return p
}

// tasks204: an update accepted with 204 No Content and its task in
// Location, as sushy-tools answers SimpleUpdate. Otherwise DMTF's mockup.
func tasks204() Profile {
	p := dmtf()
	p.Name, p.Product = "tasks-204", "Redfish service answering updates 204"
	p.Updates = UpdateShape{Reply204: true}
	return p
}

// supermicroX12: Supermicro's X12 as bmclib drives it: pushed images only,
// naming Targets with @Redfish.OperationApplyTime OnStartUpdateRequest,
// verified ("BIOS Verify") and held until UpdateService.StartUpdate; the
// BIOS then says Scheduled and installs at the next host reset, the BMC's
// own firmware installs and resets the BMC. No power-off step (bmclib's
// X12 install steps have none, X11's do).
func supermicroX12() Profile {
	p := supermicro()
	p.Name = "supermicro-x12"
	p.HostOffFor = nil
	p.StagesHostUpdates = true
	p.Updates = UpdateShape{StartUpdate: true, StagedState: taskScheduled}
	return p
}
