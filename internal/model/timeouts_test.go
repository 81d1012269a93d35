package model

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeoutsDefaultsAreTheOperatorTable(t *testing.T) {
	d := DefaultTimeouts()
	want := map[string]time.Duration{"drain": 20 * time.Minute, "vmShutdown": 10 * time.Minute, "cordon": 10 * time.Minute,
		"powerOff": 40 * time.Minute, "start": 30 * time.Minute, "restart": 40 * time.Minute, "reimage": 3 * time.Hour, "replace": 4 * time.Hour,
		"media": 10 * time.Minute, "etcdJoin": 10 * time.Minute, "remediationWait": 2 * time.Hour, "imageCheck": 30 * time.Minute, "call": time.Minute,
		"firmware": time.Hour}
	require.Len(t, TimeoutFields, len(want))
	for _, f := range TimeoutFields {
		assert.Equal(t, want[f.Key], f.Of(d), f.Key)
	}
	assert.Equal(t, d, Timeouts{}.OrDefaults(), "a ledger written before the table reads the defaults")
}

func TestTimeoutsSetFieldsOverrideTheRest(t *testing.T) {
	inv, err := ParseInventory([]byte(minimalYAML + "timeouts: {reimage: 90s, drain: 2s}\n"))
	require.NoError(t, err)
	got := inv.Timeouts.Resolve()
	assert.Equal(t, 90*time.Second, got.Reimage.Std())
	assert.Equal(t, 2*time.Second, got.Drain.Std())
	assert.Equal(t, 4*time.Hour, got.Replace.Std(), "unset: the default")

	// The waits' keys, in the docs' two-line form.
	inv, err = ParseInventory([]byte(minimalYAML + "timeouts: {reimage: 90m,\n  media: 2m, etcdJoin: 5m, remediationWait: 30m, imageCheck: 10m, call: 20s}\n"))
	require.NoError(t, err)
	got = inv.Timeouts.Resolve()
	assert.Equal(t, []time.Duration{2 * time.Minute, 5 * time.Minute, 30 * time.Minute, 10 * time.Minute, 20 * time.Second},
		[]time.Duration{got.Media.Std(), got.EtcdJoin.Std(), got.RemediationWait.Std(), got.ImageCheck.Std(), got.Call.Std()})
}

// Every problem of the section at once, each naming the key, the value
// and what is allowed.
func TestTimeoutsBadValuesAreListedTogether(t *testing.T) {
	for name, tc := range map[string]struct {
		yaml string
		want []string
	}{
		"negative and zero": {"timeouts: {drain: -5m, cordon: 0s, restart: 20s}\n",
			[]string{"timeouts.drain", "-5m", "timeouts.cordon", "0s", "positive duration", "default 20m", "default 10m"}},
		"unparsable and unknown": {"timeouts: {reimage: soon, reboot: 5m}\n",
			[]string{"timeouts.reimage", `"soon"`, "duration such as 10m", "timeouts.reboot", "unknown"}},
		// An unparsable value once hid the zero and negative ones.
		// The keys of the waits around the steps are checked as the rest.
		"the waits' keys": {"timeouts: {media: 0s, etcdJoin: -1m, remediationWait: later, call: 20s}\n",
			[]string{"timeouts.media", "0s", "default 10m", "timeouts.etcdJoin", "-1m", "timeouts.remediationWait", `"later"`}},
		"all four kinds at once": {"timeouts: {drain: -5m, reimage: 0s, replace: soon, nap: 3m, restart: 20s}\n",
			[]string{"timeouts.drain", "-5m", "timeouts.reimage", "0s", "timeouts.replace", `"soon"`, "timeouts.nap", "unknown"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseValid([]byte(minimalYAML+tc.yaml), (*Inventory).Validate)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.False(t, strings.Contains(err.Error(), "timeouts.restart"), "a good value is not a problem")
		})
	}
}

func TestTimeoutsString(t *testing.T) {
	got := (&TimeoutsSpec{Reimage: func() *Duration { d := Duration(90 * time.Second); return &d }()}).Resolve().String()
	assert.Equal(t, "drain 20m, vmShutdown 10m, cordon 10m, powerOff 40m, start 30m, restart 40m, reimage 1m30s, replace 4h, "+
		"media 10m, etcdJoin 10m, remediationWait 2h, imageCheck 30m, call 1m, firmware 1h", got)
}
