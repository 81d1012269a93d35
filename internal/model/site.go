package model

// SiteSpec says where the site's BMC and Kubernetes activities run. A site
// whose BMCs and Kubernetes API are only reachable from its own network
// runs a site worker there (`worker --site-of <cluster>`), polling
// TaskQueue, while workflows stay on the central worker.
type SiteSpec struct {
	// TaskQueue of the site worker; empty means SiteTaskQueue(cluster).
	TaskQueue string `json:"taskQueue,omitempty"`
}

// SiteTaskQueue is the conventional task queue of a cluster's site worker.
func SiteTaskQueue(cluster string) string { return "rackroll-site-" + cluster }

// SiteTaskQueue is where this inventory's BMC and Kubernetes activities
// go: "" (the workflow's own task queue) unless the inventory has a site
// section.
func (inv *Inventory) SiteTaskQueue() string {
	if inv.Site == nil {
		return ""
	}
	if inv.Site.TaskQueue != "" {
		return inv.Site.TaskQueue
	}
	return SiteTaskQueue(inv.Cluster)
}
