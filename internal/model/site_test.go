package model

import "testing"

func TestSiteTaskQueue(t *testing.T) {
	base := "cluster: site-a\nruntimeVersion: 4.1.2\nbmcCredentials: {}\nracks: []\n"
	for _, tc := range []struct{ site, want string }{
		{"", ""},
		{"site: {}\n", "rackroll-site-site-a"},
		{"site: {taskQueue: dc2-bmc}\n", "dc2-bmc"},
	} {
		inv, err := ParseInventory([]byte(base + tc.site))
		if err != nil {
			t.Fatalf("%q: %v", tc.site, err)
		}
		if got := inv.SiteTaskQueue(); got != tc.want {
			t.Errorf("%q: SiteTaskQueue() = %q, want %q", tc.site, got, tc.want)
		}
	}
}
