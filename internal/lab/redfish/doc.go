// Package redfish simulates one Redfish BMC per bare-metal machine of the
// lab, behaving like a vendor's (Profile): idrac9 (DefaultProfile), idrac10,
// ilo5, supermicro, xcc, dmtf, and helpful (the lab's original, kinder BMC;
// never the default). The machine behind every profile is the same and
// knows what is installed; only what Redfish shows differs:
//
//   - where virtual media lives (System or Manager), member order and ids,
//     MediaTypes, upload slots (XCC RDOC), which slots the firmware boots
//     (iDRAC10: slot 1 only), the boot target that boots the virtual CD
//     (UsbCd on Supermicro), PATCH instead of InsertMedia (XCC), a stale
//     Inserted on the first read after an eject (iDRAC);
//   - BootSourceOverrideTarget and ResetType allowable values as the vendor
//     advertises them (Supermicro's malformed GracefulShutdownGracefulRestart);
//   - ETags weak (W/"…") or strong; BootProgress absent (iDRAC, iLO 5, XCC),
//     POST-time only (Supermicro) or full (dmtf, helpful);
//   - answers to actions: 204, 200 with a message, or 202 with a task
//     monitor (iDRAC10's reset job, Supermicro's InsertMedia);
//   - sessions (SessionService/Sessions: POST → X-Auth-Token + Location,
//     DELETE logs out) with a per-BMC limit (iDRAC 8, refused with RAC0218),
//     an idle timeout, and basic auth off on idrac10;
//   - an AccountService (accounts.go) for BMC keysets: accounts created
//     (POST; on idrac9 a PATCH of an empty slot of a fixed table, POST and
//     DELETE 405, accounts_slots.go), patched (password, role, enabled),
//     deleted, up to
//     Config.AccountLimit (16 by default, the BMC's own included; one
//     more is refused CreateLimitReachedForResource); an enabled account
//     logs in; the BMC's own account is protected; passwords never shown.
//
// Only helpful publishes the installed version (System → OperatingSystem →
// Links.SoftwareImage → SoftwareInventory.Version), Status.State
// Starting/Updating, Health Critical after a failed install, and reset tasks
// that end when the OS runs; vendors' reset jobs end with the power cycle.
//
// Behaviour. A new BMC's machine is on and runs Config.RuntimeVersion. A
// power transition takes Timings.PowerTransition (a restart two of them),
// a boot Timings.Boot. Restarting an Off machine is refused with 409 as
// iDRAC does. A one-time boot override is consumed by the boot that uses
// it. Booting the virtual-CD target with .../rackroll-<version>.iso
// inserted in a bootable slot runs the installer: reimage-start,
// Timings.Reimage, reimage-done, then a boot into the new version. Ejecting
// the installer's media before reimage-done breaks the install
// (reimage-failed; no bootable OS until an install completes), as does a
// power action during it. There is no PXE server: Pxe boots fall through
// to the disk. Serve speaks HTTP, ServeTLS HTTPS (the lab's CA signs).
//
// Faults (SetFault): faults.ReimageFails ends the install in reimage-failed with
// no bootable OS until a reimage succeeds; faults.ReimageHangs never
// finishes until a power action; faults.PowerOnFails accepts On but the
// machine stays Off and the task ends in Exception; faults.BMC5xx,
// faults.BMCTimeout and faults.StaleETag hit the given fraction of requests
// (or PATCHes) and strike before the request is processed, so a failed
// request had no effect; faults.BMCUnreachable drops every connection
// unanswered; faults.ResetIgnored answers every reset 204 and does
// nothing; faults.MediaUnmount answers InsertMedia and leaves the slot
// empty (a fault event names the image). Profile.ResetDelay shows an
// accepted reset only that long after its answer (idrac9-lagging).
//
// Events: power-on / power-off when power changes (restarts log a single
// reset), boot-override on a PATCH that changes it, media-insert /
// media-eject (with the slot), reimage-*, session-create / session-delete
// (reason logout or timeout), and fault on set and clear, all with BMM and
// Rack and the time.
package redfish
