package workflows

// waits is every wait the workflows build, with its bound
// (TestEveryWaitHasItsBound); docs/time-limits.md lists each under the
// words of its last field.
var waits = []listed{
	// A step's own limit: its activity, and the workflow's timer for it.
	{wait{"kernel.Steps.long", "ScheduleToCloseTimeout", "l.D"}, byTable, "a step's activity"},
	{wait{"kernel.Steps.long", "StartToCloseTimeout", "l.D"}, byTable, "a step's activity"},
	{wait{"kernel.Steps.long", "HeartbeatTimeout", "heartbeatTimeout(l)"}, byTable, "a step's activity"},
	{wait{"kernel.bound", "workflow.NewTimer", "l.D"}, byTable, "a step's timer"},
	{wait{"actions.BMMActionWorkflow", "workflow.NewTimer", "limit"}, byTable, "an action's timer"},
	// After a reimage: the eject (a clean-up) and the etcd member's join.
	{wait{"kernel.Steps.cleanup", "ScheduleToCloseTimeout", "l.D"}, byTable, "the eject of the installer"},
	{wait{"kernel.Steps.cleanup", "StartToCloseTimeout", "l.D"}, byTable, "the eject of the installer"},
	{wait{"kernel.Steps.cleanup", "HeartbeatTimeout", "heartbeatTimeout(l)"}, byTable, "the eject of the installer"},
	{wait{"kernel.KCPMember.Await", "ScheduleToCloseTimeout", "l.D"}, byTable, "the etcd member's join"},
	{wait{"kernel.KCPMember.Await", "StartToCloseTimeout", "l.D"}, byTable, "the etcd member's join"},
	{wait{"kernel.KCPMember.Await", "HeartbeatTimeout", "heartbeatTimeout(l)"}, byTable, "the etcd member's join"},
	{wait{"kernel.KCPMember.Await", "StartToCloseTimeout", "MemberJoinTimeout + time.Minute"}, byLegacy, "the etcd member's join"},
	{wait{"kernel.KCPMember.Await", "HeartbeatTimeout", "time.Minute"}, byLegacy, "the etcd member's join"},
	// Calls that answer at once: each attempt.
	{wait{"kernel.Steps.short", "StartToCloseTimeout", "CallAttempt(s.Ctx, s.T.Limits, 1)"}, byTable, "a call that answers at once"},
	{wait{"kernel.KCPMember.Remove", "StartToCloseTimeout", "CallAttempt(ctx, m.Limits, 1)"}, byTable, "a call that answers at once"},
	{wait{"kernel.observeControlPlane", "StartToCloseTimeout", "CallAttempt(ctx, cs.Limits(), 3)"}, byTable, "the control-plane gate's reads"},
	{wait{"kernel.moveLeader", "StartToCloseTimeout", "CallAttempt(ctx, cs.Limits(), 2)"}, byTable, "the move of etcd's leadership"},
	{wait{"remediation.monitor.round", "StartToCloseTimeout", "kernel.CallAttempt(ctx, cs.Limits(), 1)"}, byTable, "the monitor's read of the nodes"},
	{wait{"upgrade.askCapacity", "ScheduleToCloseTimeout", "limit"}, byTable, "the capacity check"},
	{wait{"upgrade.askCapacity", "StartToCloseTimeout", "limit"}, byTable, "the capacity check"},
	{wait{"cluster.labelCtx", "StartToCloseTimeout", "kernel.CallAttempt(ctx, t, 2)"}, byTable, "the ledger's labels on a node"},
	{wait{"keysets.accountCtx", "StartToCloseTimeout", "kernel.CallAttempt(ctx, t.Limits, 1)"}, byTable, "a BMC account of a keyset"},
	{wait{"keysets.accountCtx", "ScheduleToCloseTimeout", "kernel.CallBound(t.Limits)"}, byTable, "a BMC account of a keyset"},
	{wait{"keysets.nodeCtx", "StartToCloseTimeout", "kernel.CallAttempt(ctx, t.Limits, 1)"}, byTable, "the BMM keysets on a node"},
	{wait{"keysets.nodeCtx", "ScheduleToCloseTimeout", "kernel.CallBound(t.Limits)"}, byTable, "the BMM keysets on a node"},
	{wait{"keysets.nodeCtx", "HeartbeatTimeout", "kernel.CallAttempt(ctx, t.Limits, 4)"}, byTable, "the BMM keysets on a node"},
	// The upgrade's preflights.
	{wait{"upgrade.upgrade.checkImage", "ScheduleToCloseTimeout", "limit"}, byTable, "the image preflight"},
	{wait{"upgrade.upgrade.checkImage", "HeartbeatTimeout", "kernel.CallAttempt(ctx, limitsOf(u.server), 1)"}, byTable, "the image preflight"},
	{wait{"upgrade.upgrade.checkVersionSource", "StartToCloseTimeout", "versionSourceLimit(u.server) / 3"}, byTable, "the version-source preflight"},
	{wait{"upgrade.upgrade.checkVersionSource", "ScheduleToCloseTimeout", "versionSourceLimit(u.server)"}, byTable, "the version-source preflight"},
	// Children.
	{wait{"upgrade.childOpts", "WorkflowRunTimeout", "runLimit(run)"}, byTable, "a rack's or a server's run"},
	{wait{"remediation.remLadder.failover", "WorkflowRunTimeout", "failoverRun(l.ctx, l.cs)"}, byTable, "the failover's run"},
	{wait{"actions.troubleshooter.rung", "WorkflowRunTimeout", "none"}, bySelf, "a runbook's action"},
	{wait{"remediation.monitor.start", "WorkflowRunTimeout", "none"}, bySelf, "a remediation the monitor starts"},
	{wait{"kernel.ReestablishKeys", "WorkflowRunTimeout", "none"}, bySelf, "the keysets after a reinstall or an upgrade"},
	// Pacing: how often a bounded (or endless) loop looks again.
	{wait{"server.awaitRemediation", "workflow.Sleep", "remediationPoll"}, byPacing, "the wait for a remediation"},
	{wait{"upgrade.rackReport.report", "workflow.NewTimer", "wait"}, byPacing, "a rack's progress report"},
	{wait{"remediation.monitor.sleep", "workflow.Sleep", "m.interval"}, byPacing, "the monitor's round"},
	{wait{"remediation.monitor.sleep", "workflow.AwaitWithTimeout", "m.interval"}, byPacing, "the monitor's round"},
	{wait{"cluster.clusterLedger.run", "workflow.AwaitWithTimeout", "sweep"}, byPacing, "the ledger's sweep"},
	{wait{"cluster.clusterLedger.run", "workflow.Await", "none"}, byPacing, "the ledger's sweep"},
	{wait{"cluster.clusterLedger.run", "workflow.Await", "none"}, byPacing, "the ledger's sweep"},
	// The ledger's own calls.
	{wait{"kernel.LedgerOf.opts", "StartToCloseTimeout", "30 * time.Second"}, byLedger, "a call to the ledger"},
	{wait{"kernel.LedgerOf.localOpts", "StartToCloseTimeout", "30 * time.Second"}, byLedger, "a call to the ledger"},
	{wait{"kernel.LedgerOf.localOpts", "ScheduleToCloseTimeout", "5 * time.Minute"}, byLedger, "a call to the ledger"},
	// A short read of the site as a local activity: its caller's bounds.
	{wait{"kernel.SiteRead", "ScheduleToCloseTimeout", "opts.ScheduleToCloseTimeout"}, byTable, "a call that answers at once"},
	{wait{"kernel.SiteRead", "StartToCloseTimeout", "opts.StartToCloseTimeout"}, byTable, "a call that answers at once"},
	{wait{"cluster.clusterLedger.run", "StartToCloseTimeout", "30 * time.Second"}, byLedger, "a call to the ledger"},
	// The operator's.
	{wait{"upgrade.upgrade.pause", "workflow.Await", "none"}, byOperator, "a pause"},
	// At a pause, before moving to a new build: the Update handlers, which
	// answer at once, finish in the task that runs them.
	{wait{"upgrade.upgrade.move", "workflow.Await", "none"}, byOperator, "a move: its Update handlers, answered at once"},
	{wait{"upgrade.upgrade.runUnit", "workflow.Await", "none"}, byOperator, "a pause"},
	{wait{"upgrade.upgrade.waitBetween", "workflow.AwaitWithTimeout", "w"}, byOperator, "the wait between racks"},
	{wait{"upgrade.upgrade.resumeWait", "workflow.AwaitWithTimeout", "d"}, byOperator, "what is left of the wait between racks, after a move"},
	{wait{"keysets.waitExpiry", "workflow.AwaitWithTimeout", "d"}, byOperator, "a keyset's expiration"},
	// A fleet (workflows/rollout): idle until the operator's next start;
	// its reads of its sites, paced, each a long read of its own.
	{wait{"rollout.FleetWorkflow", "workflow.Await", "none"}, byOperator, "a fleet between rollouts"},
	{wait{"rollout.run.watch", "workflow.Await", "none"}, byPacing, "a fleet's read of its sites"},
	{wait{"rollout.run.sleep", "workflow.AwaitWithTimeout", "d"}, byPacing, "a fleet's read of its sites"},
	{wait{"rollout.run.watch", "StartToCloseTimeout", "watchFor + 2*time.Minute"}, byFleet, "a fleet's read of its sites"},
	{wait{"rollout.run.watch", "HeartbeatTimeout", "every + time.Minute"}, byFleet, "a fleet's read of its sites"},
	{wait{"rollout.run.startWave", "StartToCloseTimeout", "5 * time.Minute"}, byFleet, "a fleet's start of a wave"},
	{wait{"rollout.run.tell", "StartToCloseTimeout", "2 * time.Minute"}, byFleet, "a fleet's word to its sites"},
}

// limits are the step limits the workflows build (kernel.Limit), each from
// the table, the operator's flags, or what is left of another.
var limits = []listed{
	{wait{"kernel.Limit.Left", "Limit.D", "max(l.D-workflow.Now(ctx).Sub(start), time.Second)"}, byTable, "a step's activity"},
	{wait{"kernel.TimeoutLimit", "Limit.D", "f.Of(t)"}, byTable, "a step's activity"},
	{wait{"kernel.RemediationLimit", "Limit.D", "d.Std()"}, byTable, "a step's activity"},
	{wait{"kernel.Steps.ReimageUntilBack", "Limit.D", "j.WaitLimit()"}, byLegacy, "a step's activity"},
	{wait{"actions.actionLimit", "Limit.D", "l.D + drain.D + vms.D"}, byTable, "an action's timer"},
	{wait{"actions.actionLimit", "Limit.D", "in.TimeLimit"}, byOperator, "an action's timer"},
	{wait{"actions.evacuateLimits", "Limit.D", "d"}, byOperator, "an action's timer"},
	{wait{"actions.evacuateLimits", "Limit.D", "in.EvacuateTimeout - d"}, byOperator, "an action's timer"},
	{wait{"actions.action.left", "Limit.D", "max(a.deadline.Sub(workflow.Now(a.st.Ctx)), time.Second)"}, byTable, "an action's timer"},
	{wait{"actions.action.reimageLimit", "Limit.D", "max(l.D-min(whole/20, time.Minute), time.Second)"}, byTable, "an action's timer"},
	{wait{"server.awaitRemediation", "Limit.D", "RemediationWaitLimit"}, byLegacy, "the wait for a remediation"},
	{wait{"server.serverLimits", "Limit.D", "in.DrainTimeout"}, byOperator, "a step's activity"},
	{wait{"server.serverLimits", "Limit.D", "in.VMShutdownTimeout"}, byOperator, "a step's activity"},
}
