package fleet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Judge: what a site shows, and the verdict a fleet gives it.
func TestJudge(t *testing.T) {
	const silentOK, silentLong = time.Minute, 10 * time.Minute
	cases := []struct {
		name string
		o    Observation
		want string
	}{
		{"no upgrade yet", Observation{WorkerSilentFor: silentOK}, Pending},
		{"none, at the target", Observation{AtTarget: true}, Current},
		{"running", Observation{Run: "Running", WorkerSilentFor: silentOK}, Running},
		{"completed at the target", Observation{Run: "Completed", AtTarget: true}, Succeeded},
		{"completed short of it (cancelled at the site)", Observation{Run: "Completed"}, Cancelled},
		{"failed", Observation{Run: "Failed", ClusterMessage: "rack2 failed"}, Failed},
		{"terminated", Observation{Run: "Terminated"}, Failed},
		{"cancelled by Temporal", Observation{Run: "Canceled"}, Cancelled},
		{"paused on its threshold", Observation{Run: "Running", Paused: true, PausedAt: "rack3"}, Paused},
		{"paused by its strategy", Observation{Run: "Running", Paused: true, PauseByStrategy: true}, Waiting},
		{"paused on the operator's word", Observation{Run: "Running", Paused: true, PauseByStrategy: true, PauseMessage: "paused on the operator's word before rack rack2 starts"}, Waiting},
		{"a storm", Observation{Run: "Running", ClusterStatus: "Degraded", ClusterMessage: "storm"}, Storm},
		{"a storm after success", Observation{Run: "Completed", AtTarget: true, ClusterStatus: "Degraded"}, Storm},
		{"ledger silent", Observation{LedgerError: "deadline exceeded"}, Unreachable},
		{"workers silent", Observation{Run: "Running", WorkerSilentFor: silentLong}, Unreachable},
		{"workers silent once done: no matter", Observation{Run: "Completed", AtTarget: true, WorkerSilentFor: silentLong}, Succeeded},
		{"another upgrade there", Observation{Run: "Running", OtherTarget: true}, Failed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Judge(c.o, 3*time.Minute)
			require.Equal(t, c.want, r.Verdict, r.Detail)
			if Halts(r.Verdict) {
				require.NotEmpty(t, r.Detail, "a halt says why")
			}
		})
	}
}

// Done: what holds a wave no longer.
func TestSiteDone(t *testing.T) {
	require.True(t, Site{Verdict: Succeeded}.Done())
	require.True(t, Site{Verdict: Current}.Done())
	require.False(t, Site{Verdict: Failed}.Done(), "a failed site holds its wave until acknowledged")
	require.True(t, Site{Verdict: Failed, Acknowledged: true}.Done())
	require.False(t, Site{Verdict: Running, Acknowledged: true}.Done())
}

// A site waiting between units says why: its pause's own message, the
// operator's word or its strategy's.
func TestWaitingSaysWhy(t *testing.T) {
	msg := "paused on the operator's word before rack rack2 starts (fleet weekly paused)"
	r := Judge(Observation{Run: "Running", Paused: true, PauseByStrategy: true, PauseMessage: msg}, time.Minute)
	if r.Verdict != Waiting || r.Detail != msg {
		t.Fatalf("got %+v", r)
	}
}
