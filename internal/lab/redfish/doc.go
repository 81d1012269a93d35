// Package redfish simulates one Dell-iDRAC-shaped Redfish BMC per bare-metal
// machine of the lab. It serves the standard DMTF resources that rackroll's
// activities (and gofish, redfishtool, sushy) use:
//
//   - /redfish/v1/ (public), Systems/System.Embedded.1 with PowerState,
//     Status, BootProgress, Boot override and #ComputerSystem.Reset;
//   - VirtualMedia under the System (…/System.Embedded.1/VirtualMedia/1,
//     newer iDRAC) and under the Manager (…/iDRAC.Embedded.1/VirtualMedia/CD,
//     older iDRAC), one drive seen in both places;
//   - SessionService (X-Auth-Token sessions) besides basic auth;
//   - TaskService/Tasks/<id>, each also the task monitor of the action that
//     made it (202 while Running, 200 once Completed/Exception/Cancelled);
//   - the installed OS version as SoftwareInventory.Version, linked from
//     System → OperatingSystem → Links.SoftwareImage.
//
// Behaviour. A new BMC's machine is on and runs Config.RuntimeVersion. A
// power transition takes Timings.PowerTransition (a restart two of them),
// a boot Timings.Boot. Reset answers 202 with a task that completes when the
// machine reaches the requested end state (Off, or its OS running), or 204
// when there is nothing to do; restarting an Off machine is refused with
// 409 as iDRAC does. A one-time boot override is consumed by the boot that
// uses it. Booting from Cd with .../rackroll-<version>.iso inserted
// reimages: reimage-start, Timings.Reimage, reimage-done, then a boot into
// the new version. There is no PXE server: Pxe boots fall through to the
// disk. A power action during a reimage fails it.
//
// Faults (SetFault): faults.ReimageFails ends the install in reimage-failed with
// no bootable OS (task Exception, Health Critical) until a reimage succeeds;
// faults.ReimageHangs never finishes (task stays Running) until a power action;
// faults.PowerOnFails accepts On (202) but the machine stays Off and the task
// ends in Exception; faults.BMC5xx, faults.BMCTimeout and faults.StaleETag hit the given
// fraction of requests (or PATCHes) and strike before the request is
// processed, so a failed request had no effect; faults.BMCUnreachable drops
// every connection unanswered.
//
// Events: power-on / power-off when power changes (restarts log a single
// reset), boot-override on a PATCH that changes it, media-insert /
// media-eject, reimage-*, and fault on set and clear, all with BMM and Rack.
package redfish
