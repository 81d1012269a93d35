// Package kernel is what every BMM workflow is made of; the workflow
// families import it and nothing of each other. It holds the activity
// steps on one BMM (cordon, the evacuation every disruption shares, power,
// reimage judged in band, firmware read and applied), the site's time
// limits, the one client of the ledger and the opening every disruptive
// workflow shares (read, precheck, a read-only probe, lease, recheck),
// observing the control plane and asking the live gate, etcd membership
// of a KCP, which runtime a reinstall gets, provision and retire, site
// task queues and the activity summaries the UI shows.
package kernel
